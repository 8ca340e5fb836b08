# The presence events: off by default; on, the topic, its publishers, the
# dead-letter topic, and the backend's subscriptions (events.tf).

mock_provider "google" {
  source = "./tests/mocks"
}

variables {
  project_id     = "roomlease-test"
  source_archive = "tests/fixtures/empty-source.zip"

  # With no channel, the check alerts_notify_someone fails, and a failed
  # check fails a test run; the run that expects it is in functions.tftest.hcl.
  notification_channels = ["projects/roomlease-test/notificationChannels/123"]
}

run "off_by_default" {
  command = plan

  assert {
    condition     = length(google_pubsub_topic.events) == 0 && length(google_pubsub_topic.events_dead_letter) == 0 && length(google_pubsub_subscription.events_push) == 0
    error_message = "Without events_enabled there must be no topic and no subscription."
  }

  assert {
    condition = (
      !contains(keys(google_cloudfunctions2_function.presence.service_config[0].environment_variables), "ROOMLEASE_EVENTS_TOPIC") &&
      !contains(keys(google_cloudfunctions2_function.sweep.service_config[0].environment_variables), "ROOMLEASE_EVENTS_TOPIC")
    )
    error_message = "Without events_enabled the functions must not be given ROOMLEASE_EVENTS_TOPIC (events off: no outbox, no cost)."
  }

  assert {
    condition     = !contains(keys(google_project_service.enabled), "pubsub.googleapis.com")
    error_message = "Without events the Pub/Sub API must not be enabled."
  }

  assert {
    condition     = !contains(keys(google_firestore_field.ttl), "roomleaseOutbox") && !contains(keys(google_firestore_field.index_override), "roomleaseOutbox.time")
    error_message = "Without events there is no outbox to configure: a deployment that moves to this version adds nothing."
  }
}

run "topic_and_publishers" {
  # apply: the mocked ids are known only then.
  command = apply
  variables { events_enabled = true }

  assert {
    condition = (
      google_pubsub_topic.events[0].name == "roomlease-events" &&
      google_cloudfunctions2_function.presence.service_config[0].environment_variables["ROOMLEASE_EVENTS_TOPIC"] == "roomlease-events" &&
      google_cloudfunctions2_function.sweep.service_config[0].environment_variables["ROOMLEASE_EVENTS_TOPIC"] == "roomlease-events"
    )
    error_message = "Both functions must publish to the topic NAME_PREFIX-events."
  }

  assert {
    condition = (
      toset(keys(google_pubsub_topic_iam_member.events_publisher)) == toset(["presence", "sweep"]) &&
      alltrue([for g in google_pubsub_topic_iam_member.events_publisher : g.role == "roles/pubsub.publisher" && g.topic == "roomlease-events"])
    )
    error_message = "Both functions' service accounts need roles/pubsub.publisher on the events topic, and nothing more."
  }

  assert {
    condition     = google_pubsub_topic.events_dead_letter[0].name == "roomlease-events-dead-letter" && google_pubsub_subscription.events_dead_letter[0].topic == google_pubsub_topic.events_dead_letter[0].id
    error_message = "The dead-letter topic must have a subscription that keeps its messages."
  }

  assert {
    condition     = contains(keys(google_project_service.enabled), "pubsub.googleapis.com")
    error_message = "With events the Pub/Sub API must be enabled."
  }

  assert {
    # The outbox: a TTL backstop on expireAt, and time not indexed (it
    # rises with every write).
    condition = (
      google_firestore_field.ttl["roomleaseOutbox"].field == "expireAt" && length(google_firestore_field.ttl["roomleaseOutbox"].ttl_config) == 1 &&
      length(google_firestore_field.index_override["roomleaseOutbox.time"].index_config[0].indexes) == 0
    )
    error_message = "With events, roomleaseOutbox needs its TTL policy on expireAt and time exempted from indexing."
  }

  assert {
    condition     = length(google_logging_metric.events_outbox) == 2 && google_logging_metric.events_outbox["oldest_unpublished_age"].value_extractor == "EXTRACT(jsonPayload.oldestUnpublishedEventAgeSeconds)"
    error_message = "The outbox's oldest unpublished record (the sweep report's oldestUnpublishedEventAgeSeconds) must be a metric."
  }

  assert {
    condition     = length(google_monitoring_alert_policy.events_outbox_stuck) == 1 && google_monitoring_alert_policy.events_outbox_stuck[0].conditions[0].condition_threshold[0].threshold_value == 300
    error_message = "An alert must fire when the oldest unpublished event is older than events_outbox_age_limit_seconds."
  }

  assert {
    condition     = length(google_pubsub_subscription.events_push) == 0 && length(google_monitoring_alert_policy.events_dead_letters) == 0
    error_message = "Without event_push_endpoint there is no push subscription, and nothing to dead-letter."
  }
}

run "push_subscription_authenticates_and_retries" {
  command = apply
  variables {
    events_enabled      = true
    event_push_endpoint = "https://backend.example.com/roomlease-events"
  }

  assert {
    condition = (
      google_pubsub_subscription.events_push[0].push_config[0].push_endpoint == "https://backend.example.com/roomlease-events" &&
      google_pubsub_subscription.events_push[0].push_config[0].oidc_token[0].service_account_email == google_service_account.event_push[0].email &&
      google_pubsub_subscription.events_push[0].push_config[0].oidc_token[0].audience == "https://backend.example.com/roomlease-events"
    )
    error_message = "The push subscription must send an OIDC token of the event-push account, for the endpoint as audience."
  }

  assert {
    condition = (
      google_pubsub_subscription.events_push[0].retry_policy[0].minimum_backoff == "10s" &&
      google_pubsub_subscription.events_push[0].retry_policy[0].maximum_backoff == "600s" &&
      google_pubsub_subscription.events_push[0].dead_letter_policy[0].max_delivery_attempts == 10 &&
      google_pubsub_subscription.events_push[0].dead_letter_policy[0].dead_letter_topic == google_pubsub_topic.events_dead_letter[0].id &&
      google_pubsub_subscription.events_push[0].enable_message_ordering
    )
    error_message = "The push subscription must retry with backoff, dead-letter after the maximum attempts, and keep each room's order."
  }

  assert {
    condition = (
      google_pubsub_topic_iam_member.dead_letter_publisher[0].member == "serviceAccount:service-123456789012@gcp-sa-pubsub.iam.gserviceaccount.com" &&
      google_pubsub_topic_iam_member.dead_letter_publisher[0].role == "roles/pubsub.publisher" &&
      google_pubsub_subscription_iam_member.dead_letter_subscriber["push"].role == "roles/pubsub.subscriber"
    )
    error_message = "The Pub/Sub service agent must be able to forward dead letters: publisher on the dead-letter topic, subscriber on the push subscription."
  }

  assert {
    condition     = length(google_monitoring_alert_policy.events_dead_letters) == 1
    error_message = "Dead letters must raise an alert."
  }
}

run "push_audience_and_pull" {
  command = apply
  variables {
    events_enabled          = true
    events_topic            = "presence"
    event_push_endpoint     = "https://backend.example.com/events"
    event_push_audience     = "roomlease-backend"
    event_pull_subscription = true
  }

  assert {
    condition     = google_pubsub_subscription.events_push[0].push_config[0].oidc_token[0].audience == "roomlease-backend"
    error_message = "event_push_audience must be the OIDC token's audience."
  }

  assert {
    condition = (
      google_pubsub_subscription.events_pull[0].name == "presence-pull" &&
      length(google_pubsub_subscription.events_pull[0].push_config) == 0 &&
      google_pubsub_subscription.events_pull[0].dead_letter_policy[0].dead_letter_topic == google_pubsub_topic.events_dead_letter[0].id &&
      toset(keys(google_pubsub_subscription_iam_member.dead_letter_subscriber)) == toset(["push", "pull"])
    )
    error_message = "The pull subscription must be a dead-lettered pull subscription of the topic."
  }

  assert {
    condition     = google_cloudfunctions2_function.presence.service_config[0].environment_variables["ROOMLEASE_EVENTS_TOPIC"] == "presence"
    error_message = "events_topic must reach the functions."
  }
}

run "rejects_http_push_endpoint" {
  command = plan
  variables {
    events_enabled      = true
    event_push_endpoint = "http://backend.example.com/events"
  }
  expect_failures = [var.event_push_endpoint]
}

run "rejects_topic_path" {
  command = plan
  variables { events_topic = "projects/p/topics/t" }
  expect_failures = [var.events_topic]
}

run "rejects_too_few_delivery_attempts" {
  command = plan
  variables { event_max_delivery_attempts = 3 }
  expect_failures = [var.event_max_delivery_attempts]
}

run "rejects_backoff_over_600s" {
  command = plan
  variables { event_retry_maximum_backoff = "900s" }
  expect_failures = [var.event_retry_maximum_backoff]
}

run "rejects_bad_service_account_email" {
  command = plan
  variables { service_accounts = ["backend"] }
  expect_failures = [var.service_accounts]
}

run "service_reads" {
  command = plan
  variables { service_accounts = ["support-backend@roomlease-test.iam.gserviceaccount.com"] }

  assert {
    condition = (
      google_cloudfunctions2_function.presence.service_config[0].environment_variables["ROOMLEASE_SERVICE_ACCOUNTS"] == "support-backend@roomlease-test.iam.gserviceaccount.com" &&
      google_cloudfunctions2_function.presence.service_config[0].environment_variables["ROOMLEASE_SERVICE_AUDIENCE"] == "https://us-central1-roomlease-test.cloudfunctions.net/roomlease-presence"
    )
    error_message = "The service accounts must reach the API, with the API's URL as the audience by default."
  }
}
