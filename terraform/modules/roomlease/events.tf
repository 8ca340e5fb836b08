# --- Presence events: the topic, its delivery, its alarm --------------------
#
# The functions publish every committed visible change as a CloudEvent on
# one topic (docs/events.md). Delivery to an app's backend is Pub/Sub's own:
# an optional push subscription authenticated with an OIDC token, retried
# with backoff and dead-lettered after var.event_max_delivery_attempts, and
# an optional pull subscription. Nothing here exists unless events_enabled.

locals {
  # Collection groups that exist only with events on: their TTL policy and
  # index exemption (firestore.tf's lists) are created with the topic.
  events_collection_groups = ["roomleaseOutbox", "eventCursors"]

  events_count    = var.events_enabled ? 1 : 0
  events_topic_id = coalesce(var.events_topic, "${var.name_prefix}-events")
  push_count      = var.events_enabled && var.event_push_endpoint != null ? 1 : 0
  pull_count      = var.events_enabled && var.event_pull_subscription ? 1 : 0

  # The project's Pub/Sub service agent forwards dead letters: it must be
  # able to publish to the dead-letter topic and to acknowledge on the
  # subscriptions it takes them from.
  pubsub_service_agent = var.events_enabled ? "serviceAccount:service-${data.google_project.this[0].number}@gcp-sa-pubsub.iam.gserviceaccount.com" : null

  # Subscriptions that dead-letter: the backend's, push or pull.
  dead_lettering = merge(
    local.push_count == 1 ? { push = google_pubsub_subscription.events_push[0].name } : {},
    local.pull_count == 1 ? { pull = google_pubsub_subscription.events_pull[0].name } : {},
  )
}

data "google_project" "this" {
  count      = local.events_count
  project_id = var.project_id
}

resource "google_pubsub_topic" "events" {
  count   = local.events_count
  project = var.project_id
  name    = local.events_topic_id
  labels  = { app = "roomlease" }

  depends_on = [google_project_service.enabled]
}

# Both functions publish: the API its own commits, the sweeper its expiries
# and teardowns and the outbox relay's leftovers.
resource "google_pubsub_topic_iam_member" "events_publisher" {
  for_each = var.events_enabled ? {
    presence = google_service_account.presence.member
    sweep    = google_service_account.sweep.member
  } : {}

  project = var.project_id
  topic   = google_pubsub_topic.events[0].name
  role    = "roles/pubsub.publisher"
  member  = each.value
}

resource "google_pubsub_topic" "events_dead_letter" {
  count   = local.events_count
  project = var.project_id
  name    = "${local.events_topic_id}-dead-letter"
  labels  = { app = "roomlease" }

  depends_on = [google_project_service.enabled]
}

# A topic without a subscription drops what is published to it: this one
# keeps the dead letters (7 days) for inspection and replay
# (docs/runbook.md, "Presence events: delivery").
resource "google_pubsub_subscription" "events_dead_letter" {
  count                      = local.events_count
  project                    = var.project_id
  name                       = "${local.events_topic_id}-dead-letter"
  topic                      = google_pubsub_topic.events_dead_letter[0].id
  message_retention_duration = "604800s"
  ack_deadline_seconds       = 60
  labels                     = { app = "roomlease" }

  expiration_policy {
    ttl = "" # never expires, however long nothing is dead-lettered
  }
}

resource "google_pubsub_topic_iam_member" "dead_letter_publisher" {
  count   = length(local.dead_lettering) > 0 ? 1 : 0
  project = var.project_id
  topic   = google_pubsub_topic.events_dead_letter[0].name
  role    = "roles/pubsub.publisher"
  member  = local.pubsub_service_agent
}

resource "google_pubsub_subscription_iam_member" "dead_letter_subscriber" {
  for_each     = local.dead_lettering
  project      = var.project_id
  subscription = each.value
  role         = "roles/pubsub.subscriber"
  member       = local.pubsub_service_agent
}

# The identity Pub/Sub signs the push requests' OIDC tokens as: the backend
# checks that a request carries this email and its own audience
# (clients/go/events.PushVerifier).
resource "google_service_account" "event_push" {
  count        = local.push_count
  project      = var.project_id
  account_id   = "${var.name_prefix}-event-push"
  display_name = "${var.name_prefix} presence events push"
  description  = "Signs the OIDC tokens of the presence events' push requests to the app's backend."

  depends_on = [google_project_service.enabled]
}

resource "google_pubsub_subscription" "events_push" {
  count   = local.push_count
  project = var.project_id
  name    = "${local.events_topic_id}-push"
  topic   = google_pubsub_topic.events[0].id
  labels  = { app = "roomlease" }

  # One room's events in publication order (the ordering key is the room
  # id); a consumer still orders by participantSeq (docs/events.md).
  enable_message_ordering = true
  # Also the push request's timeout.
  ack_deadline_seconds       = 30
  message_retention_duration = "604800s"

  push_config {
    push_endpoint = var.event_push_endpoint
    oidc_token {
      service_account_email = google_service_account.event_push[0].email
      audience              = coalesce(var.event_push_audience, var.event_push_endpoint)
    }
  }

  retry_policy {
    minimum_backoff = var.event_retry_minimum_backoff
    maximum_backoff = var.event_retry_maximum_backoff
  }

  dead_letter_policy {
    dead_letter_topic     = google_pubsub_topic.events_dead_letter[0].id
    max_delivery_attempts = var.event_max_delivery_attempts
  }

  expiration_policy {
    ttl = ""
  }
}

resource "google_pubsub_subscription" "events_pull" {
  count   = local.pull_count
  project = var.project_id
  name    = "${local.events_topic_id}-pull"
  topic   = google_pubsub_topic.events[0].id
  labels  = { app = "roomlease" }

  enable_message_ordering    = true
  ack_deadline_seconds       = 60
  message_retention_duration = "604800s"

  retry_policy {
    minimum_backoff = var.event_retry_minimum_backoff
    maximum_backoff = var.event_retry_maximum_backoff
  }

  dead_letter_policy {
    dead_letter_topic     = google_pubsub_topic.events_dead_letter[0].id
    max_delivery_attempts = var.event_max_delivery_attempts
  }

  expiration_policy {
    ttl = ""
  }
}

# --- The alarm: the oldest unpublished outbox record --------------------------
#
# Every sweep run reports what its relay found in the outbox
# (jsonPayload.eventsPending, jsonPayload.oldestUnpublishedEventAgeSeconds).
# Healthy, both stay near 0; a record that ages means neither its instance
# nor the relay can publish (docs/events.md, "Operating the events").

resource "google_logging_metric" "events_outbox" {
  for_each = var.events_enabled ? {
    oldest_unpublished_age = {
      field        = "oldestUnpublishedEventAgeSeconds"
      unit         = "s"
      display_name = "${var.name_prefix} events: oldest unpublished outbox record"
      description  = "Per sweep run, the age of the oldest event in the outbox that Pub/Sub has not acknowledged."
    }
    pending = {
      field        = "eventsPending"
      unit         = "1"
      display_name = "${var.name_prefix} events: outbox records pending"
      description  = "Per sweep run, the events in the outbox that Pub/Sub has not acknowledged."
    }
  } : {}

  project     = var.project_id
  name        = "${var.name_prefix}/events_${each.key}"
  description = each.value.description
  filter      = local.sweep_report_filter

  value_extractor = "EXTRACT(jsonPayload.${each.value.field})"

  metric_descriptor {
    metric_kind  = "DELTA"
    value_type   = "DISTRIBUTION"
    unit         = each.value.unit
    display_name = each.value.display_name
  }

  bucket_options {
    exponential_buckets {
      num_finite_buckets = 20
      growth_factor      = 2
      scale              = 1
    }
  }

  depends_on = [google_project_service.enabled]
}

resource "google_monitoring_alert_policy" "events_outbox_stuck" {
  count                 = local.events_count
  project               = var.project_id
  display_name          = "${var.name_prefix}: presence events not published"
  combiner              = "OR"
  severity              = "ERROR"
  notification_channels = var.notification_channels

  conditions {
    display_name = "oldest unpublished event older than ${var.events_outbox_age_limit_seconds}s for 10 min"
    condition_threshold {
      filter          = "metric.type=\"${local.metric_type_prefix}${google_logging_metric.events_outbox["oldest_unpublished_age"].name}\" AND resource.type=\"cloud_run_revision\""
      comparison      = "COMPARISON_GT"
      threshold_value = var.events_outbox_age_limit_seconds
      duration        = "600s"

      aggregations {
        alignment_period     = "300s"
        per_series_aligner   = "ALIGN_PERCENTILE_99"
        cross_series_reducer = "REDUCE_MAX"
      }

      # No sweep runs is the sweeper-silent alert's business.
      evaluation_missing_data = "EVALUATION_MISSING_DATA_INACTIVE"
    }
  }

  documentation {
    subject   = "${var.name_prefix}: presence events are stuck in the outbox"
    mime_type = "text/markdown"
    content   = "Events older than ${var.events_outbox_age_limit_seconds}s wait in the outbox: neither the instances nor the sweeper's relay can publish to ${local.events_topic_id}. See \"Presence events: delivery\" in ${local.runbook}."
  }
}

# Dead letters are events the backend refused or never answered for
# event_max_delivery_attempts deliveries: each is a change it has missed.
resource "google_monitoring_alert_policy" "events_dead_letters" {
  count                 = length(local.dead_lettering) > 0 ? 1 : 0
  project               = var.project_id
  display_name          = "${var.name_prefix}: presence events dead-lettered"
  combiner              = "OR"
  severity              = "WARNING"
  notification_channels = var.notification_channels

  conditions {
    display_name = "messages waiting in ${local.events_topic_id}-dead-letter"
    condition_threshold {
      filter          = "metric.type=\"pubsub.googleapis.com/subscription/num_undelivered_messages\" AND resource.type=\"pubsub_subscription\" AND resource.label.subscription_id=\"${google_pubsub_subscription.events_dead_letter[0].name}\""
      comparison      = "COMPARISON_GT"
      threshold_value = 0
      duration        = "300s"

      aggregations {
        alignment_period   = "300s"
        per_series_aligner = "ALIGN_MAX"
      }

      evaluation_missing_data = "EVALUATION_MISSING_DATA_INACTIVE"
    }
  }

  documentation {
    subject   = "${var.name_prefix}: the app's backend misses presence events"
    mime_type = "text/markdown"
    content   = "Events the backend did not acknowledge within ${var.event_max_delivery_attempts} deliveries wait in ${local.events_topic_id}-dead-letter. See \"Presence events: delivery\" in ${local.runbook} to find why and replay them."
  }
}
