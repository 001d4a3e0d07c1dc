//! The command line as a user meets it: analyze, compare, info, install (completions and man pages), errors on first use, the flags across subcommands, stdout failures, and the repository standing alone.
//!
//! One test binary (shared helpers in `tests/common`), so the crate is linked once for all of them.
//! Some of its tests need root or a tool; they run on `common::harness`, which reports a test
//! that cannot run here as ignored with the reason: each test is a `pub fn` listed below.

#[path = "../common/mod.rs"]
mod common;

mod analyze;
mod bench_script;
mod compare;
mod documented_commands;
mod first_use;
mod flags;
mod headline;
mod info;
mod install;
mod standalone;
mod stdout_errors;

fn main() -> std::process::ExitCode {
    common::harness::run(
        file!(),
        // Tests at once per core: the commands it runs mostly wait on real-time emulated drives.
        2,
        tests![
            documented_commands::commands_are_found_indented_and_after_sudo_or_env,
            documented_commands::every_documented_command_is_listed,
            documented_commands::documented_commands_run,
            documented_commands::documented_device_commands_run,
            documented_commands::the_first_paragraph_says_what_a_second_run_and_force_do,
            analyze::json_has_exactly_the_contract_keys,
            analyze::no_cliff_gives_null_estimate_and_a_lower_bound,
            analyze::several_files_give_one_json_line_each,
            analyze::the_line_names_cache_speeds_and_what_was_written,
            analyze::out_dir_gets_timeline_and_summary_with_the_same_analysis,
            analyze::headerless_csv_with_unit_flags,
            analyze::bad_input_exits_2_naming_file_and_line_without_panicking,
            analyze::a_two_sample_cache_phase_in_a_csv_is_found_and_flagged_coarse,
            analyze::a_coarse_position_csv_gets_the_right_count_and_advice_analyze_can_follow,
            analyze::a_diskspd_xml_result_is_analysed_and_its_cliff_found,
            analyze::one_sample_of_an_import_is_no_interval,
            analyze::a_late_window_is_still_said_assumed_when_its_timeline_is_analysed_again,
            analyze::an_emulation_that_fell_short_is_said_again_when_its_timeline_is_analysed,
            analyze::a_bursts_timeline_is_analysed_with_its_experiments_drive,
            analyze::analyze_of_a_runs_timeline_keeps_its_interruption_and_short_duration,
            bench_script::the_fio_bench_refuses_a_folder_that_holds_an_earlier_run,
            bench_script::the_fio_bench_gives_slccache_and_fio_at_its_best_the_same_places,
            compare::three_run_folders,
            compare::timeline_files_with_units_and_size,
            compare::same_names_are_told_apart,
            compare::fio_log_next_to_a_run_folder,
            compare::bad_inputs_are_usage_errors,
            compare::a_diskspd_xml_result_next_to_a_run_folder,
            compare::the_subtitle_names_the_link_a_run_s_cache_rate_was_at,
            first_use::analyze_refuses_endless_and_binary_sources,
            first_use::fio_iops_and_latency_logs_are_refused_by_name,
            first_use::the_headline_rate_is_the_mean_of_the_run,
            first_use::analyze_keeps_the_metadata_of_a_run_folder,
            first_use::a_truncated_last_line_is_dropped_with_a_warning,
            first_use::impossible_values_are_refused,
            first_use::a_timeline_saved_by_excel_with_a_bom_reads,
            first_use::unit_flags_that_a_header_contradicts_are_refused_naming_both,
            first_use::fio_input_has_no_iops_column_values,
            first_use::one_format_for_intervals,
            first_use::a_position_csv_is_read_with_derived_times,
            first_use::simulate_refuses_an_interval_longer_than_the_run_and_endless_runs,
            first_use::simulate_without_a_cliff_claims_no_impossible_cache,
            first_use::simulate_stops_on_ctrl_c_with_its_outputs,
            first_use::simulate_q_says_interrupted_in_its_line,
            first_use::a_bare_number_in_a_model_file_is_refused,
            first_use::scenario_values_out_of_range_name_the_file_and_line,
            first_use::probe_prints_the_warnings_and_no_impossible_cache,
            first_use::probe_refuses_flags_an_emulated_drive_ignores,
            first_use::size_does_not_resize_an_existing_file,
            first_use::max_bytes_below_one_block_is_refused,
            first_use::an_empty_target_is_named_as_empty,
            first_use::help_texts_say_what_a_new_user_needs,
            first_use::a_read_only_block_device_is_refused_up_front,
            first_use::a_throttled_drop_has_one_explanation_and_the_report_shows_the_heat,
            headline::every_output_states_the_same_findings_on_nine_shapes,
            headline::the_qualifiers_and_phase_names_reach_every_output,
            headline::a_cliff_past_the_span_is_no_cache_size_in_any_output,
            headline::an_interrupted_run_is_no_steady_level_and_says_it_was_interrupted,
            headline::a_read_only_run_stopped_after_one_pass_read,
            headline::the_throttled_time_left_out_says_what_it_is,
            headline::every_page_with_an_after_cache_figure_defines_it,
            headline::what_the_after_cache_rate_leaves_out_goes_with_it,
            headline::a_file_that_names_no_drive_is_no_drive_in_the_store_views,
            headline::a_drive_made_with_options_is_named_with_them_in_its_own_outputs,
            flags::every_subcommand_takes_quiet_with_one_meaning,
            flags::history_help_names_its_default_folder_by_the_text_given,
            flags::quiet_lines_have_one_shape,
            flags::analyze_gives_the_runs_line_and_with_json_on_stderr,
            flags::usage_errors_are_named_as_every_error,
            flags::usage_errors_are_one_line_and_negative_values_are_told,
            flags::results_store_flags_only_where_they_mean_something,
            flags::destroy_data_is_taken_alike_on_every_target_but_a_block_device,
            flags::hipri_errors_name_hipri,
            flags::burst_experiments_refuse_patterns_that_only_read,
            flags::every_help_reads_whole_at_80_and_100_columns,
            flags::json_is_taken_by_every_command_with_a_result,
            flags::quiet_before_the_command_means_quiet,
            flags::a_prefill_too_small_to_write_a_block_is_refused,
            info::info_on_a_loop_device_reads_and_writes_nothing,
            info::info_on_an_emulated_drive_shows_its_model_and_health_log,
            info::info_on_an_emulated_sata_drive_gives_its_link,
            info::one_sensor_reads_the_same_in_every_line_of_info,
            info::info_on_a_file_writes_nothing,
            info::info_says_probe_refuses_the_results_store,
            info::bad_targets_are_usage_errors,
            install::bash_completions_parse,
            install::zsh_completions_parse,
            install::fish_completions_parse,
            install::an_unknown_shell_is_a_usage_error,
            install::the_man_page_renders,
            install::man_writes_one_page_per_subcommand_and_theirs,
            install::man_page_examples_read_as_written,
            standalone::no_tracked_file_refers_to_the_sibling_reference_folder,
            standalone::the_data_the_tests_need_is_in_the_repository,
            stdout_errors::a_full_stdout_fails_every_command,
            stdout_errors::a_closed_pipe_ends_the_output_quietly,
        ],
    )
}
