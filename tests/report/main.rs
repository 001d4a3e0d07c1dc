//! Charts and reports: chart specs and files, the gallery, report.html in a browser, SVG against PNG, the layout and its golden outputs.
//!
//! One test binary (shared helpers in `tests/common`), so the crate is linked once for all of them.
//! Some of its tests need root or a tool; they run on `common::harness`, which reports a test
//! that cannot run here as ignored with the reason: each test is a `pub fn` listed below.

#[path = "../common/mod.rs"]
mod common;

mod charts;
mod files;
mod gallery;
mod html;
mod layout;
mod layout_golden;
mod spec;
mod svg_render;

fn main() -> std::process::ExitCode {
    common::harness::run(
        file!(),
        // Tests at once per core: drawing charts and Chromium keep a core busy.
        1,
        tests![
            charts::comparisons_of_2_to_12_runs_read_well,
            charts::align_cliff_puts_every_cliff_at_zero,
            charts::compare_labels_and_duplicate_drives,
            charts::every_phase_band_is_labelled,
            charts::long_run_gets_zoomed_charts,
            charts::smoothing_legend_reads_naturally,
            charts::latency_axis_is_labelled_low_and_max_stays_visible,
            charts::thermal_chart_has_phase_legend_and_throttled_stretches,
            charts::thermal_throttling_has_a_tint_and_a_legend_entry_of_its_own,
            charts::a_comparison_marks_each_runs_thermal_throttling,
            charts::compare_legend_names_each_drive_one_way,
            charts::chart_subtitles_give_the_rates_and_lose_only_whole_clauses,
            charts::a_cliff_past_a_wrapped_span_is_no_cache_on_the_charts,
            charts::placed_labels_neither_overlap_nor_leave_their_phase,
            charts::labels_beside_their_bands_keep_off_their_twins,
            charts::the_smoothed_line_takes_no_value_of_a_first_sample_that_holds_a_drop,
            charts::a_coarse_run_s_labels_sit_by_their_levels_and_the_smoothed_line_skips_the_cliff_sample,
            charts::no_label_box_covers_the_temperature_curve,
            charts::a_narrow_phase_is_labelled_beside_it_with_a_leader,
            charts::a_narrow_phase_s_label_stays_in_its_band,
            charts::a_size_has_the_decimals_of_its_interval_on_every_output,
            charts::phase_labels_keep_clear_of_cliffs_and_first_samples,
            charts::a_gradual_drop_without_a_cliff_is_annotated,
            charts::data_axis_unit_follows_the_range,
            charts::footer_at_10ms_leaves_no_orphan,
            charts::report_md_is_ready_to_publish,
            charts::card_is_1200_by_630_and_says_the_essentials,
            charts::dark_theme_draws_on_a_dark_background,
            charts::cliff_interval_shading_is_visible,
            charts::a_cliff_interval_does_not_read_as_a_throttled_band,
            charts::every_sweep_point_is_marked_so_one_point_lines_show,
            charts::a_sharp_drop_at_the_end_is_not_a_gradual_drop_on_the_chart,
            charts::a_stall_to_the_end_is_no_gradual_drop_on_the_chart,
            charts::sweep_charts_have_a_subtitle_a_workload_footer_and_microseconds,
            charts::the_rwmix_chart_joins_only_measured_mixes,
            charts::the_latency_chart_keeps_reads_and_writes_apart,
            charts::the_latency_charts_cliff_label_box_fits_its_text,
            charts::a_drop_inside_the_first_sample_is_neither_steady_nor_no_cliff,
            charts::the_phase_row_over_a_drop_inside_the_first_sample_gives_the_level_after_it,
            charts::the_phase_row_over_a_drop_in_the_last_sample_gives_both_levels,
            charts::a_long_first_sample_drop_keeps_its_hedge_on_the_charts_and_its_blend_said,
            charts::the_card_quotes_an_unstable_post_cache_level_as_a_range,
            charts::the_card_never_cuts_the_simulated_marker,
            charts::the_card_never_cuts_the_after_cache_text,
            charts::many_runs_label_a_cliff_past_the_span_as_no_size,
            charts::a_compare_label_keeps_a_size_s_first_sample_hedge,
            charts::a_label_beside_its_band_keeps_to_the_band_next_to_it,
            charts::the_card_keeps_the_marker_of_a_drive_made_with_options,
            charts::the_card_keeps_the_model_of_a_drive_made_with_long_options,
            charts::a_comparison_of_equal_caches_gives_one_figure,
            charts::a_comparison_marks_a_runs_drop_inside_the_first_sample,
            charts::a_comparison_draws_a_run_too_short_to_smooth_at_full_strength,
            charts::a_short_cache_phase_gets_its_level_label,
            files::one_run_writes_charts_and_report,
            files::without_latencies_no_latency_chart_and_no_link,
            files::custom_png_size_and_binary_units,
            files::comparison_files,
            files::empty_and_tiny_timelines_still_make_readable_files,
            files::smallest_and_odd_sizes_render,
            gallery::gallery_single_runs,
            gallery::gallery_comparison,
            gallery::gallery_empty_run,
            html::reports_open_offline_in_chromium_without_console_messages,
            html::a_million_samples_make_a_small_report_html,
            html::analysing_a_run_again_keeps_its_host_and_drive_rows,
            html::analysing_a_run_again_keeps_the_command_that_made_it,
            html::report_html_drive_state_reads_as_a_table_with_units,
            html::a_comparison_of_12_runs_dates_once_and_tells_every_run_apart,
            layout::the_layout_rules_hold,
            layout::no_output_decides_from_a_warning_s_words,
            layout::the_reader_skips_only_the_test_items,
            layout::report_parts_and_commands_in_folders_are_told_apart,
            layout::the_reader_finds_grouped_and_plain_paths,
            layout_golden::seeded_outputs_are_byte_identical_to_the_goldens,
            spec::clean_cliff_over_time,
            spec::clean_cliff_over_data_marks_the_cache_size,
            spec::binary_units_everywhere,
            spec::three_phases_two_cliffs,
            spec::a_comparison_marks_every_cliff_of_a_run,
            spec::no_cliff_says_so,
            spec::a_million_samples_keep_every_dip,
            spec::latency_chart,
            spec::comparison_one_style_per_run,
            spec::compare_labels_keep_what_tells_runs_apart,
            spec::compare_subtitle_counts_one_run,
            spec::compare_subtitle_gives_each_cache_with_its_interval,
            spec::compare_subtitle_keeps_the_hidden_first_tier_hedge,
            spec::compare_keeps_the_heat_at_the_cliff_hedge,
            spec::compare_subtitle_is_never_cut_inside_a_clause,
            spec::png_size_is_respected_and_labels_scale,
            svg_render::svg_renders_match_the_pngs,
            svg_render::the_render_comparison_sees_a_missing_title,
            svg_render::svg_checker_rejects_broken_documents,
        ],
    )
}
