package dev.stagecraft.cli.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code stagecraft variables ...} against a stand-in planner: requests, output, secrecy. */
class VariablesCommandTest {
  private static final String SECRET = "hunter2-very-secret";
  private static final String KEY =
      "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n"
          + "-----END OPENSSH PRIVATE KEY-----\n";

  @TempDir Path tmp;
  private final StubApi api;

  VariablesCommandTest() throws Exception {
    api = new StubApi();
  }

  @AfterEach
  void stop() {
    api.close();
  }

  @Test
  void listShowsNamesAndPlainValuesButNeverASensitiveValue() {
    api.answer(
        "GET /api/v1/workspaces/prod/variables",
        200,
        "{\"workspace\":\"prod\",\"version\":7,\"variables\":["
            + "{\"key\":\"region\",\"category\":\"terraform\",\"hcl\":false,\"sensitive\":false,"
            + "\"value\":\"eu-west-1\"},"
            + "{\"key\":\"nodes\",\"category\":\"terraform\",\"hcl\":true,\"sensitive\":false,"
            + "\"value\":\"[\\\"a\\\", \\\"b\\\"]\"},"
            // a server that wrongly sent a sensitive value: still not printed
            + "{\"key\":\"ssh_key\",\"category\":\"terraform\",\"hcl\":false,\"sensitive\":true,"
            + "\"value\":\""
            + SECRET
            + "\"},"
            + "{\"key\":\"TOKEN\",\"category\":\"env\",\"sensitive\":true},"
            + "{\"key\":\"OWNER\",\"category\":\"env\",\"sensitive\":false}]}");

    assertThat(api.run(tmp, "", "variables", "list", "-workspace=prod")).isZero();

    assertThat(api.requests).containsExactly("GET /api/v1/workspaces/prod/variables");
    assertThat(api.out())
        .contains("Variables of workspace prod (version 7):")
        .containsPattern("region +terraform +no +\"eu-west-1\"")
        .containsPattern("nodes +terraform +no +\\[\"a\", \"b\"\\] \\(hcl\\)")
        .containsPattern("ssh_key +terraform +yes +\\(sensitive\\)")
        .containsPattern("TOKEN +env +yes +\\(sensitive\\)")
        .containsPattern("OWNER +env +no +\\(hidden\\)")
        .doesNotContain(SECRET);
  }

  @Test
  void setSendsTheValueAndItsKindAndNeverPrintsIt() {
    api.answer(
        "PUT /api/v1/workspaces/default/variables/db_password",
        200,
        "{\"key\":\"db_password\",\"sensitive\":true,\"version\":8}");

    assertThat(
            api.run(
                tmp,
                "",
                "variables",
                "set",
                "db_password",
                SECRET,
                "-sensitive",
                "-description=the database's"))
        .isZero();

    assertThat(api.requests)
        .containsExactly(
            "PUT /api/v1/workspaces/default/variables/db_password {\"value\":\""
                + SECRET
                + "\",\"category\":\"terraform\",\"hcl\":false,\"sensitive\":true,"
                + "\"description\":\"the database's\"}");
    assertThat(api.out())
        .isEqualTo(
            "Set the sensitive Terraform variable db_password of workspace default"
                + " (variables version 8).\n")
        .doesNotContain(SECRET);
    assertThat(api.err()).doesNotContain(SECRET);
  }

  @Test
  void aValueComesFromAFileAsItIsOrFromStandardInputWithoutItsNewline() throws Exception {
    Files.writeString(tmp.resolve("id_ed25519"), KEY, StandardCharsets.UTF_8);

    assertThat(api.run(tmp, "", "variables", "set", "ssh_key", "@id_ed25519", "-sensitive"))
        .isZero();
    assertThat(api.run(tmp, SECRET + "\n", "variables", "set", "-env", "-sensitive", "TOKEN", "-"))
        .isZero();
    assertThat(api.run(tmp, "", "variables", "set", "nodes", "[\"a\"]", "-hcl", "-workspace", "w"))
        .isZero();

    assertThat(api.requests)
        .containsExactly(
            "PUT /api/v1/workspaces/default/variables/ssh_key {\"value\":\""
                + KEY.replace("\n", "\\n")
                + "\",\"category\":\"terraform\",\"hcl\":false,\"sensitive\":true}",
            "PUT /api/v1/workspaces/default/variables/TOKEN {\"value\":\""
                + SECRET
                + "\",\"category\":\"env\",\"hcl\":false,\"sensitive\":true}",
            "PUT /api/v1/workspaces/w/variables/nodes {\"value\":\"[\\\"a\\\"]\","
                + "\"category\":\"terraform\",\"hcl\":true,\"sensitive\":false}");
    assertThat(api.out())
        .contains("Set the sensitive environment variable TOKEN of workspace default.")
        .doesNotContain(SECRET, "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ");
  }

  @Test
  void unsetNamesTheCategoryAndAMissingVariableIsTheServersOneLineError() {
    api.answer(
        "DELETE /api/v1/workspaces/prod/variables/TOKEN",
        404,
        "{\"title\":\"Not Found\",\"status\":404,"
            + "\"detail\":\"no env variable TOKEN in workspace prod\"}");
    api.answer("DELETE /api/v1/workspaces/prod/variables/region", 204, "");

    assertThat(api.run(tmp, "", "variables", "unset", "region", "-workspace=prod")).isZero();
    assertThat(api.run(tmp, "", "variables", "unset", "TOKEN", "-env", "-workspace=prod"))
        .isEqualTo(1);

    assertThat(api.requests)
        .containsExactly(
            "DELETE /api/v1/workspaces/prod/variables/region?category=terraform",
            "DELETE /api/v1/workspaces/prod/variables/TOKEN?category=env");
    assertThat(api.out()).isEqualTo("Unset the Terraform variable region of workspace prod.\n");
    assertThat(api.err()).isEqualTo("Error: no env variable TOKEN in workspace prod\n");
  }

  @Test
  void historyListsTheChangesWithoutValues() {
    api.answer(
        "GET /api/v1/workspaces/prod/variables/history",
        200,
        "{\"changes\":[{\"version\":2,\"key\":\"ssh_key\",\"category\":\"terraform\","
            + "\"change\":\"set\",\"sensitive\":true,\"by\":\"alice\","
            + "\"at\":\"2026-12-01T10:00:00.123Z\"},"
            + "{\"version\":3,\"key\":\"TOKEN\",\"category\":\"env\",\"change\":\"unset\","
            + "\"sensitive\":false,\"by\":\"bot\",\"at\":\"2026-12-01T11:00:00Z\"}]}");

    assertThat(api.run(tmp, "", "variables", "history", "-workspace=prod")).isZero();

    assertThat(api.out())
        .containsPattern("VERSION +AT +BY +CHANGE +KEY +CATEGORY +SENSITIVE")
        .containsPattern("2 +2026-12-01T10:00:00Z +alice +set +ssh_key +terraform +yes")
        .containsPattern("3 +2026-12-01T11:00:00Z +bot +unset +TOKEN +env +no");
  }

  @Test
  void usageErrorsSendNothing() {
    assertThat(api.run(tmp, "", "variables", "set", "only_a_key")).isEqualTo(1);
    assertThat(api.run(tmp, "", "variables", "set", "k", "v", "-global")).isEqualTo(1);
    assertThat(api.run(tmp, "", "variables", "set", "k", "v", "-env", "-hcl")).isEqualTo(1);
    assertThat(api.run(tmp, "", "variables", "set", "k", "@missing-file")).isEqualTo(1);
    assertThat(api.run(tmp, "", "variables", "list", "extra")).isEqualTo(1);
    assertThat(api.run(tmp, "", "variables", "unset")).isEqualTo(1);

    assertThat(api.requests).isEmpty();
    assertThat(api.err())
        .contains("variables set needs a KEY and a VALUE")
        .contains("variables set has no option -global")
        .contains("-hcl is for Terraform variables")
        .contains("cannot read the value file")
        .contains("Usage: stagecraft variables set KEY VALUE|@FILE|-");
  }
}
