package dev.stagecraft.planner.service.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.planner.service.adapter.db.WorkspaceStore.Workspace;
import dev.stagecraft.planner.service.console.PageModels.Chrome;
import dev.stagecraft.planner.service.console.PageModels.DiffView;
import dev.stagecraft.planner.service.console.PageModels.WorkspacePage;
import dev.stagecraft.servicekit.http.InternalHttp;
import gg.jte.ContentType;
import gg.jte.TemplateEngine;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * The workspace page: what the lock and state services answer becomes the lock, queue, versions and
 * diff shown; a reader gets no settings form and no force-unlock; tenant values render inert.
 */
class WorkspacePageTest {
  static final String HOSTILE = ConsoleTemplatesTest.HOSTILE;
  final ConsoleTemplates templates =
      new ConsoleTemplates(TemplateEngine.createPrecompiled(ContentType.Html));

  static JsonNode json(String text) {
    return new InternalHttp.Response(200, text).json();
  }

  static final String LOCK =
      "{\"holder\":\"run-7\",\"lockId\":\"lk-1\",\"fencingToken\":4,"
          + "\"acquiredAt\":\"2026-12-06T10:00:00Z\",\"leaseExpiresAt\":\"2026-12-06T10:01:00Z\","
          + "\"info\":null,\"queue\":[\"run-8\",\"run-9\"]}";
  static final String VERSIONS =
      "[{\"serial\":1,\"sequence\":1,\"time\":\"2026-12-06T09:00:00Z\",\"type\":\"apply\","
          + "\"runId\":\"r1\",\"actor\":\"tok\",\"digest\":\"sha256:a\"},"
          + "{\"serial\":2,\"sequence\":2,\"time\":\"2026-12-06T09:30:00Z\",\"type\":\"apply\","
          + "\"runId\":\"r2\",\"actor\":\"tok\",\"digest\":\"sha256:b\"}]";
  static final String DIFF =
      "{\"from\":1,\"to\":2,\"instances\":[{\"address\":\"null_resource.web\",\"change\":"
          + "\"changed\",\"attributes\":[{\"name\":\"triggers\",\"sensitive\":false,"
          + "\"before\":{\"rev\":\"one\"},\"after\":{\"rev\":\"two\"}},{\"name\":\"password\","
          + "\"sensitive\":true,\"before\":\"(sensitive value)\",\"after\":\"(sensitive value)\"}],"
          + "\"fields\":[\"dependencies\"]}],\"outputs\":[]}";

  WorkspacePage page(String role, DiffView diff) {
    Instant t = Instant.parse("2026-12-06T10:00:00Z");
    var w = new Workspace("acme", "prod", true, 10, false, 1800, t, t);
    return new WorkspacePage(
        new Chrome("Workspace prod", "acme", role, "csrf-token-1", "runs"),
        "prod",
        WorkspacePages.settings(w),
        "admin".equals(role),
        WorkspacePages.lock(json(LOCK)),
        WorkspacePages.versions(json(VERSIONS)),
        null,
        diff,
        null);
  }

  @Test
  void anAdminSeesTheSettingsFormTheLockWithItsQueueAndForceUnlockWithTheCsrfToken() {
    String html = templates.render("workspace", page("admin", null));
    assertThat(html).contains("id=\"settings-form\"").contains("id=\"force-unlock-form\"");
    assertThat(html).contains("name=\"lockId\" value=\"lk-1\"");
    assertThat(html).contains("<input id=\"reason\" name=\"reason\" required>");
    assertThat(html).contains("id=\"lock-holder\">run-7<");
    assertThat(html).contains("<li value=\"1\">run-8</li>").contains("<li value=\"2\">run-9</li>");
    assertThat(html.split("name=\"_csrf\" value=\"csrf-token-1\"", -1)).hasSize(4); // 2 + sign-out
  }

  @Test
  void aLockTakenOverTerraformsBackendIsForcedOpenByTerraformsLockId() {
    var lock =
        WorkspacePages.lock(
            json("{\"holder\":\"terraform:tf-9\",\"lockId\":\"lease-3\",\"queue\":[]}"));
    assertThat(lock.held()).isTrue();
    assertThat(lock.lockId()).isEqualTo("tf-9");
    assertThat(WorkspacePages.lock(json("{\"lockId\":null,\"queue\":[]}")).held()).isFalse();
  }

  @Test
  void aReaderSeesTheSettingsAndTheLockButNoFormToChangeThem() {
    String html = templates.render("workspace", page("reader", null));
    assertThat(html).doesNotContain("settings-form").doesNotContain("force-unlock");
    assertThat(html).contains("Only an admin may change these.").contains("run-7");
  }

  @Test
  void theDiffShowsTheChangedAttributeBeforeAndAfterAndHidesSensitiveValues() {
    var diff = WorkspacePages.diff(1, 2, json(DIFF));
    String html = templates.render("workspace", page("reader", diff));
    assertThat(html).contains("From version 1 to 2").contains("null_resource.web");
    assertThat(html)
        .contains("<td><code>{\"rev\":\"one\"}</code></td>")
        .contains("<td><code>{\"rev\":\"two\"}</code></td>");
    assertThat(html).contains("(sensitive value)").contains("Also changed: dependencies");
    // the versions, newest first, and both selected in the picker
    assertThat(html.indexOf("<td>2</td>")).isLessThan(html.indexOf("<td>1</td>"));
    assertThat(html)
        .contains("<option value=\"1\" selected>")
        .contains("<option value=\"2\" selected>");
  }

  @Test
  void hostileValuesFromTheServicesRenderAsText() {
    String lock =
        "{\"holder\":"
            + quoted(HOSTILE)
            + ",\"lockId\":"
            + quoted(HOSTILE)
            + ",\"queue\":["
            + quoted(HOSTILE)
            + "]}";
    String diff =
        "{\"instances\":[{\"address\":"
            + quoted(HOSTILE)
            + ",\"change\":\"added\","
            + "\"attributes\":[{\"name\":\"x\",\"before\":null,\"after\":"
            + quoted(HOSTILE)
            + "}],\"fields\":[]}],\"outputs\":[]}";
    Instant t = Instant.parse("2026-12-06T10:00:00Z");
    var page =
        new WorkspacePage(
            new Chrome("w", "acme", "admin", "c", "runs"),
            "prod",
            WorkspacePages.settings(new Workspace("acme", "prod", true, 1, true, 60, t, t)),
            true,
            WorkspacePages.lock(json(lock)),
            WorkspacePages.versions(json(VERSIONS)),
            null,
            WorkspacePages.diff(1, 2, json(diff)),
            HOSTILE);
    String html = templates.render("workspace", page);
    assertThat(html).doesNotContain("<script>alert").doesNotContain("<img src=x");
  }

  private static String quoted(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }
}
