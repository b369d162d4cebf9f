package dev.stagecraft.planner.service.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.planner.service.adapter.db.WorkspaceStore.Workspace;
import dev.stagecraft.planner.service.console.PageModels.Chrome;
import dev.stagecraft.planner.service.console.PageModels.DiffView;
import dev.stagecraft.planner.service.console.PageModels.Listed;
import dev.stagecraft.planner.service.console.PageModels.ResourceRow;
import dev.stagecraft.planner.service.console.PageModels.RollbackPage;
import dev.stagecraft.planner.service.console.PageModels.WorkspacePage;
import dev.stagecraft.servicekit.http.InternalHttp;
import gg.jte.ContentType;
import gg.jte.TemplateEngine;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * The workspace page: what the lock and state services answer becomes the lock, queue, versions,
 * diff, resources and known hosts shown; an admin gets rollback, taint / untaint and host key
 * removal forms with the CSRF token, a reader none of them (nor the settings form or force-unlock);
 * tenant values render inert.
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
  static final String STATE =
      "{\"version\":4,\"serial\":2,\"resources\":["
          + "{\"mode\":\"managed\",\"type\":\"null_resource\",\"name\":\"web\",\"instances\":"
          + "[{\"index_key\":0,\"attributes\":{}},{\"index_key\":1,\"status\":\"tainted\"}]},"
          + "{\"mode\":\"data\",\"type\":\"external\",\"name\":\"ip\",\"instances\":[{}]},"
          + "{\"module\":\"module.db\",\"mode\":\"managed\",\"type\":\"null_resource\","
          + "\"name\":\"pg\",\"instances\":[{\"index_key\":\"a\\\"b\"}]}]}";
  static final String KEYS =
      "{\"keys\":[{\"host\":\"web.example\",\"port\":22,\"fingerprint\":\"SHA256:abc\","
          + "\"source\":\"known-hosts\",\"workspace\":null,\"runId\":null,\"actor\":\"admin@acme\","
          + "\"createdAt\":\"2026-12-06T08:00:00Z\"},{\"host\":\"db.example\",\"port\":2222,"
          + "\"fingerprint\":\"SHA256:def\",\"source\":\"first-use\",\"workspace\":\"prod\","
          + "\"runId\":\"r1\",\"actor\":null,\"createdAt\":\"2026-12-06T09:00:00Z\"}]}";

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
        Listed.of(WorkspacePages.resources(json(STATE))),
        Listed.of(WorkspacePages.hostKeys(json(KEYS))),
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
    // settings, force-unlock, 3 taint / untaint, 2 host keys, sign-out
    assertThat(html.split("name=\"_csrf\" value=\"csrf-token-1\"", -1)).hasSize(9);
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
    assertThat(html)
        .doesNotContain("/rollback")
        .doesNotContain("/taint")
        .doesNotContain("/untaint")
        .doesNotContain("/known-hosts/remove");
    assertThat(html).contains("<code>null_resource.web[1]</code>").contains("web.example:22");
    assertThat(html.split("name=\"_csrf\"", -1)).as("only sign-out's form").hasSize(2);
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
            Listed.of(
                WorkspacePages.resources(
                    json(
                        "{\"resources\":[{\"type\":"
                            + quoted(HOSTILE)
                            + ",\"name\":\"n\",\"instances\":[{\"index_key\":"
                            + quoted(HOSTILE)
                            + "}]}]}"))),
            Listed.of(
                WorkspacePages.hostKeys(
                    json(
                        "{\"keys\":[{\"host\":"
                            + quoted(HOSTILE)
                            + ",\"port\":22,\"fingerprint\":"
                            + quoted(HOSTILE)
                            + ",\"source\":\"first-use\"}]}"))),
            HOSTILE);
    String html = templates.render("workspace", page);
    assertThat(html).doesNotContain("<script>alert").doesNotContain("<img src=x");
  }

  @Test
  void theResourcesAreAddressedAsTerraformDoesAndTaintedOnesOfferUntaint() {
    assertThat(WorkspacePages.resources(json(STATE)))
        .containsExactly(
            new ResourceRow("null_resource.web[0]", "null_resource", false),
            new ResourceRow("null_resource.web[1]", "null_resource", true),
            new ResourceRow("module.db.null_resource.pg[\"a\\\"b\"]", "null_resource", false));
    assertThat(WorkspacePages.resources(null)).isEmpty();
    String html = templates.render("workspace", page("admin", null));
    String web0 = html.substring(html.indexOf("data-address=\"null_resource.web[0]\""));
    assertThat(web0.substring(0, web0.indexOf("</tr>")))
        .contains("action=\"/console/workspaces/prod/taint\"")
        .contains("name=\"address\" value=\"null_resource.web[0]\"")
        .contains(">Taint</button>");
    String web1 = html.substring(html.indexOf("data-address=\"null_resource.web[1]\""));
    assertThat(web1.substring(0, web1.indexOf("</tr>")))
        .contains("<td class=\"status\">tainted</td>")
        .contains("action=\"/console/workspaces/prod/untaint\"")
        .contains(">Untaint</button>");
  }

  @Test
  void knownHostsNameTheirScopeSoRemovalAsksTheRightApiRoute() {
    var keys = WorkspacePages.hostKeys(json(KEYS));
    assertThat(keys)
        .extracting(PageModels.HostKeyRow::scope)
        .containsExactly("tenant", "workspace");
    assertThat(keys.get(1).addedBy()).isEqualTo("run r1");
    String html = templates.render("workspace", page("admin", null));
    assertThat(html)
        .contains("web.example:22")
        .contains("known host (whole tenant)")
        .contains("db.example:2222")
        .contains("trusted on first use");
    assertThat(html)
        .contains("name=\"host\" value=\"db.example\"")
        .contains("name=\"port\" value=\"2222\"")
        .contains("name=\"scope\" value=\"workspace\"")
        .contains("name=\"scope\" value=\"tenant\"");
  }

  @Test
  void anAdminIsOfferedRollbackToEveryVersionButTheCurrentOne() {
    String html = templates.render("workspace", page("admin", null));
    assertThat(html).contains("href=\"/console/workspaces/prod/rollback?serial=1\"");
    assertThat(html).doesNotContain("rollback?serial=2");
  }

  @Test
  void theRollbackConfirmationShowsWhatItChangesAndPostsTheSerialWithTheCsrfToken() {
    var page =
        new RollbackPage(
            new Chrome("Roll back prod", "acme", "admin", "csrf-token-1", "runs"),
            "prod",
            "1",
            "2",
            WorkspacePages.diff(2, 1, json(DIFF)));
    String html = templates.render("rollback", page);
    assertThat(html).contains("to version 1?").contains("null_resource.web");
    assertThat(html).contains("(sensitive value)");
    String form =
        html.substring(
            html.indexOf("action=\"/console/workspaces/prod/rollback\" id=\"rollback-form\""));
    assertThat(form)
        .contains("name=\"_csrf\" value=\"csrf-token-1\"")
        .contains("name=\"serial\" value=\"1\"")
        .contains("id=\"confirm-rollback\"");
  }

  @Test
  void anUnreadableStateOrHostListSaysWhyInsteadOfAnEmptyTable() {
    Instant t = Instant.parse("2026-12-06T10:00:00Z");
    var page =
        new WorkspacePage(
            new Chrome("w", "acme", "admin", "c", "runs"),
            "prod",
            WorkspacePages.settings(new Workspace("acme", "prod", true, 1, true, 60, t, t)),
            true,
            WorkspacePages.lock(json(LOCK)),
            WorkspacePages.versions(json(VERSIONS)),
            null,
            null,
            Listed.unavailable("The state service cannot be reached now."),
            Listed.unavailable("Known hosts unavailable"),
            null);
    String html = templates.render("workspace", page);
    assertThat(html)
        .contains("id=\"resources-note\">The state service cannot be reached now.")
        .contains("id=\"hosts-note\">Known hosts unavailable")
        .doesNotContain("id=\"resources\"");
  }

  private static String quoted(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }
}
