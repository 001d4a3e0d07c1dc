//! The results library: SQLite and PostgreSQL stores, credentials, origins, the HTML index, the fleet scripts, and the README's results-library commands.
//!
//! One test binary (shared helpers in `tests/common`), so the crate is linked once for all of them.
//! Some of its tests need root or a tool; they run on `common::harness`, which reports a test
//! that cannot run here as ignored with the reason: each test is a `pub fn` listed below.

#[path = "../common/mod.rs"]
mod common;

mod cli;
mod credentials;
mod fleet_ansible;
mod fleet_kubernetes;
mod html;
mod origin;
mod postgres;
mod readme;
mod sqlite;
mod target;

fn main() -> std::process::ExitCode {
    // The halves of the SIGKILL tests that record until they are killed: started by those
    // tests, never run as tests of their own.
    if let Some(code) = common::harness::run_child(tests![
        postgres::sigkill_child_records_forever,
        sqlite::sigkill_child_records_forever,
    ]) {
        return code;
    }
    common::harness::run(
        file!(),
        // Tests at once per core: the tests wait on PostgreSQL servers and on the commands they run.
        2,
        tests![
            cli::probe_import_list_compare_export_on_sqlite,
            cli::history_suggestions_keep_the_db_given,
            cli::history_takes_a_drive_as_the_store_prints_it,
            cli::a_bad_store_warns_and_keeps_the_run,
            cli::a_merged_run_is_exported_with_the_charts_it_drew,
            cli::a_user_s_files_beside_a_run_are_never_stored_or_exported,
            cli::a_run_stored_without_its_report_says_so,
            cli::a_read_only_folder_warns_and_keeps_the_run,
            cli::an_interrupted_probe_is_recorded_as_interrupted,
            cli::history_charts_a_drive_against_date_and_wear,
            cli::runs_html_finishes_an_interrupted_page,
            cli::a_simulated_sweep_is_listed_as_a_simulated_drive,
            cli::history_finds_a_file_by_the_name_it_was_probed_as,
            cli::history_finds_a_file_by_a_part_of_its_name,
            cli::a_probed_file_is_named_a_file_not_a_real_drive,
            cli::the_library_folder_follows_the_store,
            cli::history_keeps_workloads_specs_and_unsteady_runs_apart,
            cli::the_history_page_gives_each_run_s_findings,
            cli::a_run_analysed_again_in_place_is_not_recorded_twice,
            cli::analyze_force_into_another_run_s_folder_keeps_nothing_of_that_run,
            cli::a_hand_made_run_analysed_again_is_not_recorded_twice,
            cli::a_filter_beside_a_run_id_is_refused,
            cli::runs_says_where_the_link_capped_the_cache_rate,
            cli::history_says_why_no_run_has_a_cache_size,
            cli::history_draws_no_wear_chart_from_counters_that_restart_each_run,
            cli::runs_copy_refuses_the_forms_of_the_list,
            cli::history_takes_single_runs_and_bounds_as_runs_does,
            cli::a_mistyped_store_url_is_refused_and_creates_nothing,
            cli::reading_commands_never_create_a_store,
            cli::unrecorded_runs_are_spooled_and_imported_later,
            cli::runs_html_refuses_a_folder_that_is_not_its_own_without_force,
            cli::pending_runs_wait_for_their_own_store,
            cli::the_spool_reminder_counts_only_this_store_s_runs,
            cli::an_empty_listing_says_why_and_counts_read_right,
            cli::runs_show_says_when_the_folder_no_longer_holds_the_run,
            cli::runs_show_says_how_large_a_hidden_first_tier_could_be,
            cli::a_rate_too_short_to_judge_is_not_quoted_as_a_drive_s_figure,
            cli::compare_of_a_stored_sweep_says_what_compare_takes,
            cli::bad_input_to_the_results_library_is_exit_2,
            cli::runs_import_says_what_became_of_each_folder,
            cli::runs_give_the_after_cache_rate_every_output_gives,
            cli::a_read_only_store_is_read_by_the_reading_commands,
            cli::since_takes_dates_and_local_times_and_run_ids_are_positive,
            cli::runs_rm_asks_on_a_terminal,
            cli::runs_copy_help_says_where_its_filters_go,
            cli::runs_json_before_show_is_show_json_and_list_forms_are_refused_as_such,
            credentials::a_password_in_any_form_reaches_no_output_and_no_column,
            credentials::tls_follows_sslmode_and_sslrootcert,
            credentials::connection_errors_name_their_cause,
            credentials::a_locked_table_never_holds_a_finished_run_for_long,
            fleet_ansible::three_benches_under_ansible_one_losing_its_server,
            fleet_kubernetes::the_job_manifest_is_complete,
            fleet_kubernetes::the_job_command_runs_and_records_under_the_node_name,
            html::the_library_page_lists_filters_and_links_every_run,
            html::the_library_page_fits_1400_px,
            html::the_library_page_s_table_fits_1400_px,
            origin::every_kind_of_run_records_its_host_and_tags,
            origin::runs_filter_by_host_part_and_tags,
            origin::the_runs_table_tells_workloads_apart,
            origin::runs_by_group_give_count_median_and_range,
            origin::runs_by_drive_keeps_a_drive_s_workloads_apart_and_marks_hedged_sizes,
            origin::runs_by_group_marks_rates_that_left_heat_out_or_may_not_last,
            origin::runs_by_drive_keeps_emulated_specs_apart_as_history_does,
            origin::a_run_analysed_again_is_one_measurement_of_its_drive,
            origin::compare_names_runs_of_several_hosts_by_host_and_id,
            origin::history_never_merges_drives_of_another_capacity_or_kind,
            origin::history_advice_picks_each_drive_and_following_it_works,
            origin::history_finds_simulated_runs_by_their_preset,
            origin::runs_tables_fit_the_terminal_width,
            postgres::store_cases_on_postgres,
            postgres::sigkill_while_recording_on_postgres,
            postgres::unreachable_postgres_fails_with_a_clear_message,
            postgres::probe_import_list_compare_export_on_postgres,
            postgres::tables_live_in_their_own_schema_not_public,
            postgres::a_version_1_store_in_public_is_used_in_place_then_moved_by_db_migrate,
            postgres::grafana_queries_on_the_dashboard_views,
            postgres::a_fleet_role_with_insert_and_select_only_records_and_lists,
            postgres::a_newer_store_is_written_when_it_only_added_and_spooled_when_not,
            postgres::runs_copy_between_sqlite_and_postgres_keeps_everything_once,
            postgres::reading_commands_create_no_store_on_a_server,
            readme::every_store_and_fleet_command_of_the_readme_runs,
            sqlite::store_cases_on_sqlite,
            sqlite::bad_sqlite_files_are_refused_unchanged,
            sqlite::sigkill_while_recording_leaves_whole_runs,
            sqlite::a_version_1_sqlite_store_takes_version_2_and_older_writers_go_on,
            target::the_results_store_is_never_a_probe_target,
            target::a_loop_device_over_the_results_store_is_refused,
            target::another_results_store_is_never_a_probe_target,
        ],
    )
}
