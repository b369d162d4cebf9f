package dev.stagecraft.cli.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code stagecraft variable-sets ...} against a stand-in planner: requests, output, secrecy. */
class VariableSetsCommandTest {
  private static final String SECRET = "s3t-secret-value";
  private static final String VIEW =
      "{\"name\":\"aws\",\"description\":\"cloud keys\",\"global\":false,"
          + "\"workspaces\":[\"prod\",\"staging\"],\"version\":4,\"variables\":["
          + "{\"key\":\"AWS_SECRET_ACCESS_KEY\",\"category\":\"env\",\"sensitive\":true},"
          + "{\"key\":\"region\",\"category\":\"terraform\",\"sensitive\":false,"
          + "\"value\":\"eu-west-1\"}]}";

  @TempDir Path tmp;
  private final StubApi api;

  VariableSetsCommandTest() throws Exception {
    api = new StubApi();
  }

  @AfterEach
  void stop() {
    api.close();
  }

  @Test
  void listAndShowNameTheWorkspacesAndNeverASensitiveValue() {
    api.answer(
        "GET /api/v1/variable-sets",
        200,
        "{\"variableSets\":["
            + VIEW
            + ",{\"name\":\"org\",\"global\":true,\"workspaces\":[],"
            + "\"variables\":[]}]}");
    api.answer("GET /api/v1/variable-sets/aws", 200, VIEW);

    assertThat(api.run(tmp, "", "variable-sets", "list")).isZero();
    assertThat(api.run(tmp, "", "variable-sets", "show", "aws")).isZero();

    assertThat(api.requests)
        .containsExactly("GET /api/v1/variable-sets", "GET /api/v1/variable-sets/aws");
    assertThat(api.out())
        .containsPattern("aws +no +2 +prod, staging")
        .containsPattern("org +yes +0 +\\(all\\)")
        .contains("description: cloud keys")
        .contains("applies to:  prod, staging")
        .containsPattern("AWS_SECRET_ACCESS_KEY +env +yes +\\(sensitive\\)")
        .containsPattern("region +terraform +no +\"eu-west-1\"");
  }

  @Test
  void createSetUnsetAttachDetachDeleteSendWhatTheContractSays() {
    api.answer("POST /api/v1/variable-sets", 201, VIEW);
    api.answer(
        "PUT /api/v1/variable-sets/aws/variables/AWS_SECRET_ACCESS_KEY",
        200,
        "{\"key\":\"AWS_SECRET_ACCESS_KEY\",\"sensitive\":true,\"version\":5}");
    api.answer("DELETE /api/v1/variable-sets/aws/variables/region", 204, "");
    api.answer("PUT /api/v1/variable-sets/aws/workspaces/prod", 204, "");
    api.answer("DELETE /api/v1/variable-sets/aws/workspaces/prod", 204, "");
    api.answer("DELETE /api/v1/variable-sets/aws", 204, "");

    assertThat(api.run(tmp, "", "variable-sets", "create", "aws", "-description=cloud keys"))
        .isZero();
    assertThat(
            api.run(
                tmp,
                SECRET,
                "variable-sets",
                "set",
                "aws",
                "AWS_SECRET_ACCESS_KEY",
                "-",
                "-env",
                "-sensitive"))
        .isZero();
    assertThat(api.run(tmp, "", "variable-sets", "unset", "aws", "region")).isZero();
    assertThat(api.run(tmp, "", "variable-sets", "attach", "aws", "prod")).isZero();
    assertThat(api.run(tmp, "", "variable-sets", "detach", "aws", "prod")).isZero();
    assertThat(api.run(tmp, "", "variable-sets", "delete", "aws")).isZero();

    assertThat(api.requests)
        .containsExactly(
            "POST /api/v1/variable-sets {\"name\":\"aws\",\"description\":\"cloud keys\","
                + "\"global\":false}",
            "PUT /api/v1/variable-sets/aws/variables/AWS_SECRET_ACCESS_KEY {\"value\":\""
                + SECRET
                + "\",\"category\":\"env\",\"hcl\":false,\"sensitive\":true}",
            "DELETE /api/v1/variable-sets/aws/variables/region?category=terraform",
            "PUT /api/v1/variable-sets/aws/workspaces/prod {}",
            "DELETE /api/v1/variable-sets/aws/workspaces/prod",
            "DELETE /api/v1/variable-sets/aws");
    assertThat(api.out())
        .contains("name:        aws")
        .contains(
            "Set the sensitive environment variable AWS_SECRET_ACCESS_KEY of variable set aws"
                + " (variables version 5).")
        .contains("Unset the Terraform variable region of variable set aws.")
        .contains("Attached the variable set aws to workspace prod.")
        .contains("Detached the variable set aws from workspace prod.")
        .contains("Deleted the variable set aws.")
        .doesNotContain(SECRET);
  }

  @Test
  void aGlobalSetAndHistory() {
    api.answer(
        "GET /api/v1/variable-sets/org/history",
        200,
        "{\"changes\":[{\"version\":1,\"key\":\"owner\",\"category\":\"terraform\","
            + "\"change\":\"set\",\"sensitive\":false,\"by\":\"admin\","
            + "\"at\":\"2026-12-01T10:00:00Z\"}]}");

    assertThat(api.run(tmp, "", "variable-sets", "create", "org", "-global")).isZero();
    assertThat(api.run(tmp, "", "variable-sets", "history", "org")).isZero();

    assertThat(api.requests)
        .containsExactly(
            "POST /api/v1/variable-sets {\"name\":\"org\",\"description\":\"\",\"global\":true}",
            "GET /api/v1/variable-sets/org/history");
    assertThat(api.out()).containsPattern("1 +2026-12-01T10:00:00Z +admin +set +owner");
  }

  @Test
  void errorsAreTheServersOneLineAndUsageErrorsSendNothing() {
    api.answer(
        "PUT /api/v1/variable-sets/org/variables/region",
        409,
        "{\"title\":\"Conflict\",\"status\":409,\"detail\":\"the global set base already"
            + " defines region\"}");

    assertThat(api.run(tmp, "", "variable-sets", "set", "org", "region", "x")).isEqualTo(1);
    assertThat(api.err()).isEqualTo("Error: the global set base already defines region\n");

    assertThat(api.run(tmp, "", "variable-sets", "attach", "aws")).isEqualTo(1);
    assertThat(api.run(tmp, "", "variable-sets", "show")).isEqualTo(1);
    assertThat(api.run(tmp, "", "variable-sets", "delete", "aws", "-sensitive")).isEqualTo(1);
    assertThat(api.requests).hasSize(1);
    assertThat(api.err())
        .contains("variable-sets attach takes a set NAME and a WORKSPACE")
        .contains("variable-sets show takes exactly one set NAME")
        .contains("variable-sets delete has no option -sensitive");
  }
}
