package dev.stagecraft.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.systemtest.SharedStack.CliResult;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The files next to the configuration travel with it: {@code file()} and {@code filemd5()} read
 * them on the server (planning and at dispatch), saved plans carry them, and a request cannot place
 * a file outside its directory.
 */
class SupportFilesTest {
  static SharedStack stack;

  @BeforeAll
  static void start() throws Exception {
    stack = SharedStack.get();
  }

  static String config(Path log) {
    return """
        resource "null_resource" "message" {
          triggers = {
            message = filemd5("message.txt")
            script  = filemd5("${path.module}/scripts/deploy.sh")
          }
          provisioner "local-exec" {
            command = "echo ${trimspace(file("message.txt"))} >> %s"
          }
        }
        """
        .formatted(log);
  }

  @Test
  void supportingFilesAreReadOnTheServerAndAChangedFileReplacesTheResource() throws Exception {
    Path log = stack.shared.resolve("support-files.log");
    Path dir = stack.configDir("support-files", config(log));
    Files.writeString(dir.resolve("message.txt"), "hello-from-the-file\n");
    Files.createDirectories(dir.resolve("scripts"));
    Files.writeString(dir.resolve("scripts/deploy.sh"), "#!/bin/sh\necho deploy\n");
    String ws = "-workspace=support-files";

    CliResult first = stack.cli(dir, "apply", ws, "-auto-approve");
    assertThat(first.exitCode()).as(first.all()).isZero();
    assertThat(first.out()).contains("null_resource.message will be created");
    assertThat(first.all()).doesNotContain("no file exists");
    assertThat(Files.readAllLines(log)).containsExactly("hello-from-the-file");

    CliResult unchanged = stack.cli(dir, "plan", ws, "-detailed-exitcode");
    assertThat(unchanged.exitCode()).as(unchanged.all()).isZero();
    assertThat(unchanged.out()).contains("No changes.");

    Files.writeString(dir.resolve("message.txt"), "second-message\n");
    CliResult changed = stack.cli(dir, "plan", ws, "-detailed-exitcode");
    assertThat(changed.exitCode()).as(changed.all()).isEqualTo(2);
    assertThat(changed.out()).contains("must be replaced").doesNotContain("/tmp/");

    // a saved plan carries the digests of the files it was planned with (not their content,
    // which may be a key: ADR 0024); apply FILE sends the directory's files when they match
    CliResult saved = stack.cli(dir, "plan", ws, "-out=second.plan");
    assertThat(saved.exitCode()).as(saved.all()).isZero();
    assertThat(Files.readString(dir.resolve("second.plan")))
        .contains("supportFileDigests")
        .doesNotContain("\"supportFiles\"");
    CliResult applied = stack.cli(dir, "apply", ws, "second.plan");
    assertThat(applied.exitCode()).as(applied.all()).isZero();
    assertThat(Files.readAllLines(log)).containsExactly("hello-from-the-file", "second-message");

    CliResult after = stack.cli(dir, "plan", ws, "-detailed-exitcode");
    assertThat(after.exitCode()).as(after.all()).isZero();
  }

  @Test
  void aSupportFileOutsideTheConfigurationDirectoryIsABadRequest() throws Exception {
    String body =
        """
        {"workspace":"support-files-bad",
         "files":{"main.tf":"resource \\"null_resource\\" \\"a\\" {}"},
         "supportFiles":{"../escape.txt":"aGk="}}
        """;
    for (String endpoint : new String[] {"plans", "runs"}) {
      HttpResponse<String> response =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create(stack.plannerUrl() + "/api/v1/" + endpoint))
                      .header("Authorization", "Bearer " + stack.token())
                      .header("Content-Type", "application/json")
                      .POST(HttpRequest.BodyPublishers.ofString(body))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).as(endpoint + ": " + response.body()).isEqualTo(400);
      assertThat(response.headers().firstValue("Content-Type").orElse(""))
          .contains("application/problem+json");
      assertThat(response.body()).contains("../escape.txt");
    }
  }
}
