package main

// seriesBudget is the series budget of one table with 2 GSIs: for each
// family carrying a table label, the most series any one table may have
// (a table with every feature that family needs: provisioned with
// auto-scaling, on-demand, TTL), and why the family earns them. Families
// labelled by operation count the 4 operations of the bench's traffic.
// The bench fails when a table has more series in a family than its budget,
// or series in a family the budget does not name.
var seriesBudget = []budget{
	// CloudWatch, per table and GSI.
	{"dynamodb_consumed_read_capacity_units_total", 3, "table + 2 GSIs; alerts, dashboards"},
	{"dynamodb_consumed_write_capacity_units_total", 3, "table + 2 GSIs; alerts"},
	{"dynamodb_throttle_events_total", 6, "read, write × table + 2 GSIs: AWS's own throttle metrics, expected by users"},
	{"dynamodb_throttle_events_by_cause_total", 16, "read, write × 3 causes possible in the table's mode (key range, provisioned or on-demand maximum, account limit) × table + 2 GSIs, no write account limit on GSIs; alerts (issue 13: no series for a cause that cannot occur in the mode)"},
	{"dynamodb_throttled_requests_total", 4, "per operation; expected by users"},
	{"dynamodb_successful_request_latency_average_seconds", 4, "per operation; expected by users"},
	{"dynamodb_successful_request_latency_p99_seconds", 4, "per operation; alerts (hot partition on on-demand)"},
	{"dynamodb_system_errors_total", 4, "per operation; expected by users"},
	{"dynamodb_ttl_deleted_items_total", 1, "alerts (retention too short, TTL not deleting)"},
	{"dynamodb_ttl_deletion_rate_day_earlier_items_per_second", 1, "tables with TTL deletions: the same hour a day earlier, from the first cycle; the retention-bug page (issue 21)"},
	{"dynamodb_gsi_backfill_progress_ratio", 2, "per GSI only while it is CREATING (being added to the table; none at 1,000 healthy tables); the table dashboard's build progress"},
	{"dynamodb_gsi_backfill_consumed_write_capacity_units_total", 2, "per GSI only while it is CREATING; the build's write use"},
	{"dynamodb_gsi_backfill_throttle_events_total", 2, "per GSI only while it is CREATING; alerts (a build that throttles holds back the table's writes)"},
	// DescribeTable and DescribeTimeToLive.
	{"dynamodb_table_info", 1, "mode and class; alerts, dashboards"},
	{"dynamodb_table_ttl_info", 1, "TTL status; alerts"},
	{"dynamodb_items", 3, "table + 2 GSIs; dashboards"},
	{"dynamodb_size_bytes", 3, "table + 2 GSIs; dashboards"},
	{"dynamodb_provisioned_read_capacity_units", 3, "provisioned: table + 2 GSIs; alerts"},
	{"dynamodb_provisioned_write_capacity_units", 3, "provisioned: table + 2 GSIs; alerts"},
	{"dynamodb_provisioned_capacity_decreases_today", 3, "provisioned: table + 2 GSIs; AWS's decrease quota"},
	{"dynamodb_table_creation_timestamp_seconds", 1, "the table's age; alerts (retention behind writes at the first evaluation)"},
	{"dynamodb_last_switch_to_on_demand_timestamp_seconds", 1, "alerts (switching mode too often)"},
	{"dynamodb_on_demand_max_read_request_units", 3, "on-demand with a maximum: table + 2 GSIs"},
	{"dynamodb_on_demand_max_write_request_units", 3, "on-demand with a maximum: table + 2 GSIs"},
	{"dynamodb_warm_throughput_units_per_second", 6, "read, write × table + 2 GSIs (status a label, no extra series); the warm-throughput headroom (issue 22), dashboards"},
	// Global tables (DescribeTable; CloudWatch ReplicationLatency): none for a table of one region.
	{"dynamodb_table_global_info", 1, "a replica of a global table: version, consistency; the global-table grouping, dashboards"},
	{"dynamodb_table_replica_info", 4, "one per other replica of a global table (up to 4 other regions); none for a table of one region (none at 1,000 bench tables)"},
	{"dynamodb_replication_latency_seconds", 4, "one per receiving region of a global table, while it has replicated writes; none for a table of one region"},
	// DescribeContinuousBackups, once an hour per table.
	{"dynamodb_table_pitr_enabled", 1, "PITR on or off; the TTL-deleting-live-data page and its runbook, dashboards"},
	{"dynamodb_table_pitr_earliest_restorable_timestamp_seconds", 1, "PITR on: how far back a restore can go; the TTL page's runbook, dashboards"},
	{"dynamodb_table_pitr_recovery_period_seconds", 1, "PITR on: the configured recovery period; dashboards"},
	// Application Auto Scaling, per scalable target (read, write).
	{"dynamodb_autoscaling_min_capacity_units", 6, "read, write × table + 2 GSIs; expected by users"},
	{"dynamodb_autoscaling_max_capacity_units", 6, "read, write × table + 2 GSIs; alerts"},
	{"dynamodb_autoscaling_max_over_table_quota_ratio", 6, "read, write × table + 2 GSIs, only while a maximum is above the table-level quota (none at 1,000 healthy tables); the quota alert to come"},
	{"dynamodb_autoscaling_target_utilization_ratio", 6, "read, write × table + 2 GSIs; alerts (target too high)"},
	{"dynamodb_autoscaling_scale_in_cooldown_seconds", 6, "read, write × table + 2 GSIs; expected by users"},
	{"dynamodb_autoscaling_scale_out_cooldown_seconds", 6, "read, write × table + 2 GSIs; expected by users"},
	{"dynamodb_autoscaling_scale_in_disabled", 6, "read, write × table + 2 GSIs; expected by users"},
	{"dynamodb_autoscaling_scheduled_actions", 6, "read, write × table + 2 GSIs, only on dimensions that have scheduled actions (none at 1,000 tables without them); what the scheduled-scaling what-if includes"},
	// Derived from the capacity history.
	{"dynamodb_capacity_peak_to_average_ratio", 6, "read, write × table + 2 GSIs; dashboards"},
	{"dynamodb_capacity_read_write_ratio", 6, "table + 2 GSIs × 2 windows; dashboards"},
	{"dynamodb_capacity_read_write_drift_ratio", 3, "table + 2 GSIs; alerts (read/write ratio drift)"},
	{"dynamodb_capacity_read_write_weekly_drift_ratio", 3, "table + 2 GSIs, with 8 days of history; alerts (drift without the weekly cycle)"},
	{"dynamodb_capacity_read_write_baseline_drift_ratio", 3, "table + 2 GSIs, with 28 days of history; alerts (a mix change of one to three weeks)"},
	{"dynamodb_capacity_baseline_consumed_units", 6, "table + 2 GSIs × 2 windows; alerts (surge or permanent shift)"},
	{"dynamodb_capacity_surge_retention_ratio", 3, "table + 2 GSIs, after a surge; alerts (surge never re-evaluated)"},
	{"dynamodb_capacity_surge_peak_timestamp_seconds", 3, "table + 2 GSIs, after a surge; alerts"},
	{"dynamodb_capacity_cost_dollars", 4, "2 modes × 2 windows; alerts, dashboards"},
	{"dynamodb_capacity_cost_trace_seconds", 2, "2 windows; alerts, dashboards"},
	{"dynamodb_capacity_monthly_provisioned_saving_dollars", 2, "2 windows; alerts, dashboards"},
	{"dynamodb_capacity_monthly_switch_saving_dollars", 2, "2 windows; alerts, dashboards"},
	{"dynamodb_capacity_recommendation_info", 2, "2 windows; dashboards"},
	{"dynamodb_capacity_simulated_throttled_units", 4, "read, write × 2 windows; dashboards"},
	{"dynamodb_capacity_peak_advice_info", 6, "read, write × table + 2 GSIs: how the peaks are best served (issue 22); dashboards, capacity report"},
	{"dynamodb_capacity_peak_schedule_min_capacity_units", 6, "read, write × table + 2 GSIs, only for a recurring peak: the proposed scheduled MinCapacity (issue 22)"},
	{"dynamodb_capacity_peak_schedule_throttled_units", 12, "without, with × read, write × table + 2 GSIs, only for a recurring peak: the proposal's what-if (issue 22)"},
	{"dynamodb_capacity_peak_schedule_monthly_cost_dollars", 12, "without, with × read, write × table + 2 GSIs, only for a recurring peak: the proposal's cost (issue 22)"},
	{"dynamodb_capacity_peak_consumed_units_per_second", 6, "read, write × table + 2 GSIs: the previous peak of 30 days (on-demand absorbs twice it at once); alerts (a flash crowd from the first cycle), dashboards"},
	{"dynamodb_capacity_sudden_peak_units_per_second", 6, "read, write × table + 2 GSIs: the largest sudden peak taken without throttling (issue 22); dashboards, capacity report"},
	{"dynamodb_capacity_storage_monthly_cost_dollars", 3, "table + 2 GSIs, with a storage price; dashboards (storage in dollars, issue 22)"},
	{"dynamodb_capacity_class_monthly_cost_dollars", 4, "2 classes × throughput, storage, the longest window only; dashboards (the class decision)"},
	{"dynamodb_capacity_class_monthly_switch_saving_dollars", 1, "the longest window only; dashboards (the class decision)"},
	{"dynamodb_capacity_class_recommendation_info", 1, "the longest window only, or none with its reason; dashboards (the class decision)"},
	{"dynamodb_capacity_projected_monthly_cost_dollars", 4, "2 modes × 2 horizons (12, 24 months), the table only (GSIs summed in): the cost a year or two ahead (issue 22); dashboards, capacity report"},
	{"dynamodb_capacity_traffic_growth_yearly_ratio", 1, "the trend a table's projection applies, its status a label; dashboards, capacity report"},
	{"dynamodb_capacity_diagnosis_throttled_units", 36, "provisioned, dimensions the table's own policy scales, causes with units only (a healthy table has none): 3 causes × 2 windows × read, write × table + 2 GSIs; alerts at the first capacity cycle (issue 21), dashboards"},
	{"dynamodb_capacity_diagnosis_saturated_seconds", 36, "provisioned, dimensions the table's own policy scales, causes with saturated minutes only (a healthy table has none): 3 causes × 2 windows × read, write × table + 2 GSIs; the diagnosis a history capped by real throttling still shows (the throttled units stay empty there), dashboards"},
	{"dynamodb_capacity_diagnosis_last_throttled_timestamp_seconds", 36, "one per (window, dimension, cause) with throttled units or saturated minutes: when the evidence is; alerts' descriptions, dashboards"},
	{"dynamodb_capacity_simulated_scaling_events_per_day", 6, "provisioned, own policy: read, write × table + 2 GSIs, 7 days; alerts (auto-scaling too sensitive), dashboards"},
	{"dynamodb_capacity_simulated_utilization_ratio", 6, "provisioned, own policy: read, write × table + 2 GSIs, 7 days; alerts (auto-scaling too sensitive), dashboards"},
	{"dynamodb_capacity_mode_switches", 8, "switches in the base table's provisioned-capacity history only (a table that never switched has none): 2 directions × 4 windows; alerts (churn from the history, issue 21), dashboards"},
	{"dynamodb_capacity_mode_switch_timestamp_seconds", 1, "a switch 1 to 14 days old; alerts' descriptions (switch regressed), dashboards"},
	{"dynamodb_capacity_mode_switch_daily_cost_dollars", 2, "a switch 1 to 14 days old: before, since; alerts (switch regressed), dashboards"},
	{"dynamodb_capacity_mode_switch_cost_change_ratio", 1, "a switch 1 to 14 days old; alerts (switch regressed), dashboards"},
	// The TTL sampler, on tables with TTL.
	{"dynamodb_ttl_sampled_items", 10, "per item class; dashboards"},
	{"dynamodb_ttl_expired_items_estimate", 1, "dashboards"},
	{"dynamodb_ttl_expired_items_lower_bound", 1, "alerts"},
	{"dynamodb_ttl_expired_items_upper_bound", 1, "dashboards"},
	{"dynamodb_ttl_never_expiring_items_estimate", 1, "alerts, dashboards"},
	{"dynamodb_ttl_never_expiring_items_lower_bound", 1, "alerts"},
	{"dynamodb_ttl_never_expiring_items_upper_bound", 1, "dashboards"},
	{"dynamodb_ttl_oldest_expired_item_timestamp_seconds", 1, "dashboards"},
	{"dynamodb_ttl_expired_items_storage_monthly_cost_dollars", 3, "table + 2 GSIs: the expired backlog in dollars (issue 22); dashboards, ttl audit"},
	{"dynamodb_ttl_latest_live_item_expiry_timestamp_seconds", 1, "alerts (retention too short)"},
	{"dynamodb_ttl_sampled_live_items_near_latest_expiry", 2, "alerts (retention too short)"},
	{"dynamodb_ttl_foreseen_expired_items_total", 1, "alerts (retention too short: a batch expiring as designed is no retention bug)"},
	{"dynamodb_ttl_expiry_rate_estimate_items_per_second", 1, "alerts (retention too short on a table in steady state: deletions well above the steady expiry rate)"},
	{"dynamodb_ttl_live_item_remaining_lifetime_seconds", 13, "a histogram: 11 buckets, sum, count; dashboards"},
	{"dynamodb_ttl_last_sample_timestamp_seconds", 1, "alerts (sampler stalled)"},
	{"dynamodb_ttl_sampler_consumed_read_capacity_units_total", 1, "the sampler's own cost; dashboards"},
	{"dynamodb_ttl_candidate_attribute_items_ratio", 1, "tables without TTL: a candidate attribute"},
	{"dynamodb_ttl_candidate_attribute_expired_items_estimate", 1, "tables without TTL: a candidate attribute"},
	{"dynamodb_ttl_candidate_attribute_expired_items_lower_bound", 1, "tables without TTL: a candidate attribute"},
	{"dynamodb_ttl_candidate_attribute_expired_items_upper_bound", 1, "tables without TTL: a candidate attribute"},
	{"dynamodb_ttl_candidate_attribute_future_items_ratio", 1, "tables without TTL: a candidate attribute (a live writer or a backlog)"},
}

// budget is one family's series per table.
type budget struct {
	family   string
	perTable int
	why      string
}

// budgetTotal is the series budget of one table that has every feature.
func budgetTotal() int {
	n := 0
	for _, b := range seriesBudget {
		n += b.perTable
	}
	return n
}
