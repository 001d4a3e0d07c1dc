//! Probing files and loop devices: the engine, reads, refusals, faults (cliffs, errors, locks, signals), recovery, stopping, and results that must not be lost.
//!
//! One test binary (shared helpers in `tests/common`), so the crate is linked once for all of them.
//! Some of its tests need root or a tool; they run on `common::harness`, which reports a test
//! that cannot run here as ignored with the reason: each test is a `pub fn` listed below.

#[path = "../common/mod.rs"]
mod common;

mod block;
mod cpu;
mod drive_counters;
mod fault_cliff;
mod fault_errors;
mod fault_lock;
mod fault_signals;
mod file;
mod known_state;
mod reads;
mod record_partial;
mod recovery;
mod recovery_loop;
mod results_kept;
mod stop;
mod stop_replay;
mod wrap_span;

fn main() -> std::process::ExitCode {
    common::harness::run(
        file!(),
        // Tests at once per core: most tests wait on drives emulated in real time, or on loop devices.
        2,
        tests![
        block::probes_a_loop_device_it_created,
        block::the_root_device_is_refused,
        block::refuses_a_block_device_without_agreement_off_a_terminal,
        block::the_passthrough_engine_refuses_a_device_that_is_not_nvme,
        block::refuses_a_mounted_device_and_leaves_its_files_intact,
        block::refuses_a_device_in_use_as_swap,
        block::a_write_error_mid_run_stops_keeps_outputs_and_names_offset_and_time,
        block::on_a_terminal_the_user_types_the_device_name,
        block::a_filesystem_without_direct_io_gets_a_clear_error,
        cpu::an_instant_drive_makes_the_writer_cpu_bound_and_the_analysis_says_so,
        cpu::a_writer_that_waits_for_the_drive_is_not_called_cpu_bound,
        drive_counters::emulated_throttling_is_named_from_the_drives_counters,
        drive_counters::a_drive_without_counters_or_sensor_records_none,
        drive_counters::p5_sawtooth_in_virtual_time_is_named_from_the_counters,
        drive_counters::only_a_counter_rise_at_the_drop_names_it,
        fault_cliff::the_probe_finds_a_cliff_made_by_the_kernel,
        fault_errors::enospc_through_a_loop_device_stops_the_run,
        fault_errors::eio_from_the_filesystem_stops_the_run,
        fault_lock::a_second_probe_of_a_file_is_refused,
        fault_lock::a_second_probe_of_a_block_device_is_refused,
        fault_signals::after_sigkill_the_timeline_holds_every_finished_interval,
        fault_signals::sigkill_at_random_points_never_leaves_a_half_written_summary,
        fault_signals::sigint_sigterm_and_sighup_at_random_points_exit_130_with_every_output,
        fault_signals::a_signal_delivered_twice_at_once_is_one_signal,
        file::uring_writes_and_reads_land_where_asked,
        file::one_random_pass_over_a_new_file,
        file::duration_stops_the_run,
        file::sequential_passes_wrap_at_the_end_of_the_span,
        file::max_bytes_and_the_sync_engine,
        file::an_existing_file_needs_overwrite,
        file::usage_errors_come_before_any_write,
        file::sigint_drains_writes_outputs_and_exits_130,
        file::sigterm_drains_writes_outputs_and_exits_130,
        file::default_output_folder_is_named_after_the_target,
        file::a_file_written_whole_is_called_the_file_not_the_drive,
        file::a_wrapped_run_gives_the_first_pass_s_rate_as_the_first_pass_s,
        file::a_file_of_no_whole_number_of_blocks_is_still_the_file,
        file::a_file_s_span_short_of_its_size_gives_both_figures,
        file::the_stop_reason_says_one_pass_or_byte_limit_as_it_was,
        known_state::trim_empties_an_emulated_drive_as_the_model_says,
        known_state::prefill_and_idle_set_the_emulated_cache_as_the_model_says,
        known_state::bad_preparation_flags_are_usage_errors,
        known_state::trim_on_a_loop_device_discards_the_span,
        known_state::prefill_on_a_loop_device_writes_the_first_share,
        reads::reads_of_a_new_file_are_refused_and_nothing_is_created,
        reads::reads_of_a_file_with_holes_are_refused,
        reads::the_advice_for_a_file_with_holes_fills_it,
        reads::reads_of_a_filled_file_run_and_load_in_analyze_and_compare,
        reads::a_read_only_probe_reports_its_reads,
        reads::a_read_only_run_says_read_on_every_chart,
        reads::a_read_only_run_of_too_few_samples_does_not_say_the_rate_held,
        reads::reads_of_an_unprepared_block_device_warn,
        record_partial::a_run_is_recorded_when_a_chart_after_its_data_fails,
        record_partial::a_probe_into_a_full_disk_is_kept_and_recorded,
        record_partial::a_simulate_into_a_full_disk_is_kept_and_recorded,
        recovery::recovery_on_the_970_evo_model_finds_its_rate_and_delay,
        recovery::a_first_burst_with_its_drop_inside_the_first_sample_says_so,
        recovery::fill_sweep_on_the_660p_model_shows_the_dynamic_cache_gone_at_75_percent,
        recovery::bad_lists_are_usage_errors_and_write_nothing,
        recovery::ctrl_c_in_real_time_keeps_the_finished_steps_and_exits_130,
        recovery::a_signal_during_the_fill_of_a_fill_sweep_exits_130_with_every_output,
        recovery::a_drive_without_cache_is_reported_as_such_not_as_a_cache_of_everything,
        recovery::the_same_idle_brings_back_the_same_cache_whatever_the_other_idle_times,
        recovery::an_interrupt_in_the_first_burst_writes_every_output_in_bounded_memory,
        recovery::sighup_in_an_experiment_exits_130_with_every_output,
        recovery_loop::recovery_on_a_loop_device_with_a_kernel_made_cliff,
        results_kept::an_out_folder_with_files_is_refused_and_kept,
        results_kept::default_folders_of_runs_in_the_same_second_differ,
        results_kept::sweep_refuses_a_bad_out_before_the_first_point,
        results_kept::a_closed_stderr_does_not_stop_the_experiments,
        results_kept::a_duration_keeps_the_one_pass_limit_and_m_is_refused,
        results_kept::a_full_output_disk_leaves_no_truncated_file,
        results_kept::a_disk_full_before_the_header_leaves_no_empty_timeline,
        results_kept::a_file_that_backs_a_loop_device_is_refused,
        results_kept::an_active_swap_file_is_refused_up_front,
        results_kept::a_size_beyond_the_free_space_is_refused_and_tmpfs_is_named,
        results_kept::an_interrupted_sweep_leaves_the_unfinished_point_out,
        results_kept::the_model_truth_has_one_key_in_every_summary,
        results_kept::the_model_truth_of_older_summaries_is_still_read,
        stop::simulate_stops_after_the_hold_and_agrees_with_the_full_run,
        stop::a_long_cache_phase_holds_longer,
        stop::no_cliff_no_early_stop,
        stop::bad_after_cliff_is_a_usage_error,
        stop::emulated_probe_stops_at_the_cliff_and_agrees_with_the_full_run,
        stop::ctrl_c_clears_the_progress_line,
        stop::bursts_on_an_emulated_drive_see_the_cache_come_back,
            stop::a_cache_gone_inside_the_first_sample_is_warned_of_and_ends_the_run,
            stop::a_drop_inside_a_long_first_sample_ends_the_run,
        stop_replay::the_early_stop_never_stops_on_a_wrong_cliff,
        wrap_span::an_emulated_drive_with_a_span_smaller_than_its_cache_warns_that_the_writes_wrapped,
        wrap_span::a_cliff_on_a_loop_device_after_the_writes_wrapped_is_flagged,
        ],
    )
}
