package dev.stagecraft.planner.service.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.planner.service.console.PageModels.Chrome;
import dev.stagecraft.planner.service.console.PageModels.TenantPage;
import dev.stagecraft.servicekit.http.InternalHttp;
import gg.jte.ContentType;
import gg.jte.TemplateEngine;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The tenant page: an admin gets the token, revoke and rotation forms with the CSRF token and a new
 * secret shown once; a reader gets none of them; tenant values render inert.
 */
class TenantPageTest {
  static final String HOSTILE = ConsoleTemplatesTest.HOSTILE;
  final ConsoleTemplates templates =
      new ConsoleTemplates(TemplateEngine.createPrecompiled(ContentType.Html));

  static final String TOKENS =
      "[{\"id\":\"00000000000000a1\",\"role\":\"deployer\",\"description\":\"ci\","
          + "\"createdAt\":\"2026-12-06T10:00:00Z\",\"revokedAt\":null},"
          + "{\"id\":\"00000000000000b2\",\"role\":\"reader\",\"description\":\"old\","
          + "\"createdAt\":\"2026-12-01T10:00:00Z\",\"revokedAt\":\"2026-12-02T10:00:00Z\"}]";

  @Test
  void anAdminCanCreateRevokeOnlyActiveTokensAndRotateTheSecretSeeingANewOneOnce() {
    var rows = ConsoleTenantController.rows(new InternalHttp.Response(200, TOKENS).json());
    var page =
        new TenantPage(
            new Chrome("Tenant", "acme", "admin", "csrf-1", "tenant"),
            true,
            rows,
            null,
            "New token",
            "sc_secret_value",
            "http://planner.example:8081",
            null);
    String html = templates.render("tenant", page);
    assertThat(html).contains("id=\"token-form\"").contains("id=\"secret-form\"");
    assertThat(html).contains("action=\"/console/tenant/tokens/00000000000000a1/revoke\"");
    assertThat(html).doesNotContain("/console/tenant/tokens/00000000000000b2/revoke");
    assertThat(html).contains("<pre id=\"shown-once\" tabindex=\"0\">sc_secret_value</pre>");
    assertThat(html).contains("curl -X POST http://planner.example:8081/api/v1/hooks/run-requests");
    assertThat(html).contains("http://planner.example:8081/api/v1/hooks/push/acme");
    assertThat(html.split("name=\"_csrf\" value=\"csrf-1\"", -1)).hasSize(5); // 3 + sign-out
  }

  @Test
  void aReaderSeesTheEndpointsButNoForms() {
    var page =
        new TenantPage(
            new Chrome("Tenant", "acme", "reader", "csrf-1", "tenant"),
            false,
            List.of(),
            "Only an admin may see and manage the tenant's tokens.",
            null,
            null,
            "http://planner.example:8081",
            null);
    String html = templates.render("tenant", page);
    assertThat(html).doesNotContain("token-form").doesNotContain("secret-form");
    assertThat(html).contains("Only an admin may see").contains("webhook-example");
  }

  @Test
  void hostileValuesRenderAsText() {
    var page =
        new TenantPage(
            new Chrome("Tenant", HOSTILE, "admin", "c", "tenant"),
            true,
            List.of(new PageModels.TokenRow(HOSTILE, "reader", HOSTILE, HOSTILE, "")),
            null,
            "New token",
            HOSTILE,
            HOSTILE,
            HOSTILE);
    String html = templates.render("tenant", page);
    assertThat(html).doesNotContain("<script>alert").doesNotContain("<img src=x");
  }
}
