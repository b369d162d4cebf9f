package dev.stagecraft.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The strict reader the metrics system test relies on accepts the format and nothing else. */
class PrometheusTextTest {
  private static final String GOOD =
      """
      # HELP stagecraft_runs_ended_total Runs ended
      # TYPE stagecraft_runs_ended_total counter
      stagecraft_runs_ended_total{status="applied"} 2.0
      stagecraft_runs_ended_total{status="errored",note="a \\"quoted\\" \\\\ value"} 1.0
      # TYPE stagecraft_step_duration_seconds histogram
      stagecraft_step_duration_seconds_bucket{le="+Inf"} 3
      stagecraft_step_duration_seconds_count 3
      stagecraft_step_duration_seconds_sum 0.25 1700000000000
      """;

  @Test
  void sumsSamplesByNameAndLabels() {
    PrometheusText text = PrometheusText.parse(GOOD);
    assertThat(text.sum("stagecraft_runs_ended_total")).isEqualTo(3.0);
    assertThat(text.sum("stagecraft_runs_ended_total", Map.of("status", "applied"))).isEqualTo(2.0);
    assertThat(text.sum("stagecraft_step_duration_seconds_count")).isEqualTo(3.0);
    assertThat(text.samples().get(1).labels()).containsEntry("note", "a \\\"quoted\\\" \\\\ value");
  }

  @Test
  void rejectsASampleWithoutType() {
    assertThatThrownBy(() -> PrometheusText.parse("up 1\n")).hasMessageContaining("without TYPE");
  }

  @Test
  void rejectsMalformedLabelsAndValues() {
    String type = "# TYPE up gauge\n";
    assertThatThrownBy(() -> PrometheusText.parse(type + "up{a=\"x} 1\n"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> PrometheusText.parse(type + "up{a=\"x\" b=\"y\"} 1\n"))
        .hasMessageContaining("malformed labels");
    assertThatThrownBy(() -> PrometheusText.parse(type + "up 1,0\n"))
        .hasMessageContaining("not a number");
    assertThatThrownBy(() -> PrometheusText.parse(type + "# a stray comment\n"))
        .hasMessageContaining("neither HELP nor TYPE");
  }
}
