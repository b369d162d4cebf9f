package dev.stagecraft.planner.service.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.planner.service.adapter.db.RunStore.RunRecord;
import dev.stagecraft.planner.service.console.PageModels.Chrome;
import dev.stagecraft.planner.service.run.view.RunView;
import gg.jte.ContentType;
import gg.jte.TemplateEngine;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The console's pages render tenant values inert: tenants are hostile. */
class ConsoleTemplatesTest {
  static final String HOSTILE = "<script>alert(1)</script>\"'><img src=x onerror=alert(2)>";
  final ConsoleTemplates templates =
      new ConsoleTemplates(TemplateEngine.createPrecompiled(ContentType.Html));
  final Chrome chrome = new Chrome("Runs", "acme", "reader", "csrf-token-1", "runs");

  static RunRecord record(String id, String workspace, String status, boolean terminal) {
    Instant t = Instant.parse("2026-12-06T10:00:00Z");
    return new RunRecord(
        id,
        "acme",
        workspace,
        status,
        terminal,
        HOSTILE,
        HOSTILE,
        "sha256:abc",
        t,
        t,
        HOSTILE,
        null,
        null,
        null,
        List.of(),
        null,
        List.of(),
        Map.of(),
        "4bf92f3577b34da6a3ce929d0e0e4736");
  }

  @Test
  void aHostileWorkspaceAndMessageRenderAsTextInTheRunsList() {
    var page =
        RunPages.list(chrome, HOSTILE, null, List.of(record("r1", HOSTILE, "queued", false)), null);
    String html = templates.render("runs", page);
    assertThat(html).doesNotContain("<script>alert").doesNotContain("<img src=x");
    assertThat(html).contains("&lt;script&gt;alert(1)&lt;/script&gt;");
    assertThat(html).contains("name=\"_csrf\" value=\"csrf-token-1\"");
  }

  @Test
  void aHostilePlanTextAndRunIdRenderAsTextOnTheRunPage() {
    var view =
        new RunView(
            "r<b>1",
            "acme",
            HOSTILE,
            "planned",
            false,
            HOSTILE,
            "sha256:abc",
            new RunView.Live("+ resource \"x\" \"" + HOSTILE + "\""),
            Instant.EPOCH,
            true,
            null,
            null,
            List.of(new RunView.Transition(1, "planned", HOSTILE, Instant.EPOCH)));
    String html = templates.render("run", RunPages.run(chrome, view, true, HOSTILE));
    assertThat(html)
        .doesNotContain("<script>alert")
        .doesNotContain("<img src=x")
        .doesNotContain("r<b>1");
    assertThat(html).contains("id=\"approve\"").contains("value=\"sha256:abc\"");
  }

  @Test
  void theRunPageShowsTheRunsTraceIdWhenItHasOne() {
    var recorded =
        new RunView.Recorded(
            Instant.EPOCH,
            "",
            "u",
            null,
            null,
            null,
            List.of(),
            null,
            List.of(),
            Map.of(),
            "4bf92f3577b34da6a3ce929d0e0e4736");
    var view =
        new RunView(
            "r1",
            "acme",
            "ws",
            "applied",
            true,
            "",
            null,
            null,
            Instant.EPOCH,
            false,
            null,
            recorded,
            List.of());
    assertThat(templates.render("run", RunPages.run(chrome, view, false, null)))
        .contains("<code id=\"trace-id\">4bf92f3577b34da6a3ce929d0e0e4736</code>");
    var untraced =
        new RunView(
            "r1",
            "acme",
            "ws",
            "applied",
            true,
            "",
            null,
            null,
            Instant.EPOCH,
            false,
            null,
            null,
            List.of());
    assertThat(templates.render("run", RunPages.run(chrome, untraced, false, null)))
        .doesNotContain("trace-id");
  }

  @Test
  void aReaderIsOfferedNoDecisions() {
    var view =
        new RunView(
            "r1",
            "acme",
            "ws",
            "planned",
            false,
            "",
            "sha256:abc",
            null,
            Instant.EPOCH,
            true,
            null,
            null,
            List.of());
    String html = templates.render("run", RunPages.run(chrome, view, false, null));
    assertThat(html).doesNotContain("id=\"approve\"").doesNotContain("id=\"cancel\"");
  }

  @Test
  void countsActiveQueuedAndWaitingRunsAndFiltersRows() {
    var page =
        RunPages.list(
            chrome,
            "a",
            null,
            List.of(
                record("r1", "a", "applying", false),
                record("r2", "b", "queued", false),
                record("r3", "a", "planned", false),
                record("r4", "a", "applied", true)),
            null);
    assertThat(page.counts()).isEqualTo(new PageModels.Counts(1, 1, 1));
    assertThat(page.rows()).extracting(PageModels.RunRow::id).containsExactly("r1", "r3", "r4");
    assertThat(page.liveQuery()).isEqualTo("workspace=a");
  }
}
