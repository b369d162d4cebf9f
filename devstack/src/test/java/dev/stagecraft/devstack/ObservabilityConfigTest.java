package dev.stagecraft.devstack;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The Prometheus scrape configuration and the provisioned Grafana dashboard of docker-compose.yml
 * (dev/observability) cannot rot: promtool accepts the configuration, the scrape targets are the
 * four services at {@code /prometheus}, the dashboard is valid JSON whose every panel queries the
 * provisioned data source, and every metric a panel's query names is one docs/operations.md
 * "Metrics" lists (which MetricsEndToEndTest scrapes from the running services).
 */
class ObservabilityConfigTest {
  private static final Path DIR = TestRepo.root().resolve("dev/observability");
  private static final Pattern METRIC =
      Pattern.compile("\\b((?:stagecraft|kafka_consumer|http_server|hikaricp|jvm)_[a-z0-9_]+)");

  @Test
  void prometheusScrapesEveryServiceAtItsMetricsPath() throws Exception {
    JsonNode config =
        new ObjectMapper(new YAMLFactory()).readTree(DIR.resolve("prometheus.yml").toFile());
    JsonNode job = config.get("scrape_configs").get(0);

    assertThat(job.get("metrics_path").asText()).isEqualTo("/prometheus");
    List<String> targets = new ArrayList<>();
    job.get("static_configs").forEach(c -> c.get("targets").forEach(t -> targets.add(t.asText())));
    assertThat(targets)
        .containsExactlyInAnyOrder(
            "planner-service:8080",
            "state-service:8080",
            "lock-service:8080",
            "executor-service:8080");
  }

  @Test
  void promtoolAcceptsTheScrapeConfiguration() throws Exception {
    Process p =
        new ProcessBuilder("promtool", "check", "config", DIR.resolve("prometheus.yml").toString())
            .redirectErrorStream(true)
            .start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as("promtool (dev/test installs it) said:\n%s", output).isZero();
    assertThat(output).contains("SUCCESS");
  }

  @Test
  void everyDashboardPanelQueriesADocumentedMetric() throws Exception {
    JsonNode dashboard =
        new ObjectMapper().readTree(DIR.resolve("grafana/dashboards/stagecraft.json").toFile());
    String documented =
        Files.readString(TestRepo.root().resolve("docs/operations.md"))
            .split("\n## Metrics\n", 2)[1];
    Set<String> queried = new TreeSet<>();

    assertThat(dashboard.get("panels")).hasSizeGreaterThanOrEqualTo(10);
    for (JsonNode panel : dashboard.get("panels")) {
      assertThat(panel.at("/datasource/uid").asText())
          .as(panel.get("title").asText())
          .isEqualTo("stagecraft-prometheus");
      assertThat(panel.get("targets")).as(panel.get("title").asText()).isNotEmpty();
      for (JsonNode target : panel.get("targets")) {
        Matcher m = METRIC.matcher(target.get("expr").asText());
        while (m.find()) {
          queried.add(m.group(1));
        }
      }
    }

    assertThat(queried)
        .contains("stagecraft_runs_started_total", "stagecraft_lock_wait_seconds_bucket");
    for (String metric : queried) {
      String family = metric.replaceAll("_(bucket|count|sum|total)$", "");
      assertThat(documented).as(metric).containsAnyOf("`" + metric, "`" + family);
    }
  }
}
