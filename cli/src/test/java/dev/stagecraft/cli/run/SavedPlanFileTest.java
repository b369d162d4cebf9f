package dev.stagecraft.cli.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.cli.CliContext;
import dev.stagecraft.cli.UsageException;
import java.io.BufferedReader;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A saved plan holds the SHA-256 of the supporting files, not their content (a key read by {@code
 * key_file} must not be copied into plan files, ADR 0024); applying it sends the directory's files
 * when they still match, and refuses when one changed.
 */
class SavedPlanFileTest {
  private static final String KEY = "-----BEGIN OPENSSH PRIVATE KEY-----\nkey-body-Xy71\n";

  @TempDir Path dir;

  private CliContext ctx() {
    return ctx(Map.of());
  }

  private CliContext ctx(Map<String, String> env) {
    return new CliContext(
        dir,
        env,
        new PrintStream(PrintStream.nullOutputStream()),
        new PrintStream(PrintStream.nullOutputStream()),
        new BufferedReader(new StringReader("")));
  }

  private void save(Path file) throws Exception {
    save(file, Map.of());
  }

  private void save(Path file, Map<String, String> sensitive) throws Exception {
    Map<String, Object> request = new LinkedHashMap<>();
    request.put("workspace", "default");
    request.put("files", Map.of("main.tf", "# empty"));
    request.put("supportFiles", ConfigDirectory.readSupportFiles(dir));
    request.put("variables", Map.of());
    SavedPlan.write(
        file,
        request,
        new ObjectMapper().readTree("{\"prior_serial\":3,\"digest\":\"d1\",\"plan\":{}}"),
        sensitive);
  }

  @Test
  @SuppressWarnings("unchecked")
  void aSensitiveValueIsNotSavedAndMustBeGivenAgainUnchanged() throws Exception {
    Files.writeString(dir.resolve("main.tf"), "# empty");
    Path plan = dir.resolve("p.plan");

    save(plan, Map.of("password", "hunter2"));

    assertThat(Files.readString(plan)).doesNotContain("hunter2").contains("pbkdf2-sha256$");
    Map<String, Object> request =
        SavedPlan.readRunRequest(plan, ctx(Map.of("TF_VAR_password", "hunter2")));
    assertThat((Map<String, Object>) request.get("variables")).containsEntry("password", "hunter2");
    assertThatThrownBy(() -> SavedPlan.readRunRequest(plan, ctx(Map.of("TF_VAR_password", "x"))))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("\"password\" is not the one the plan was made with")
        .hasMessageNotContaining("hunter2");
    assertThatThrownBy(() -> SavedPlan.readRunRequest(plan, ctx()))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("TF_VAR_password");

    // a fingerprint that cannot be read: the file is damaged, nothing is sent
    Files.writeString(
        plan, Files.readString(plan).replaceAll("pbkdf2-sha256\\$[^\"]*", "pbkdf2-sha256\\$x"));
    assertThatThrownBy(
            () -> SavedPlan.readRunRequest(plan, ctx(Map.of("TF_VAR_password", "hunter2"))))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("damaged");
  }

  @Test
  @SuppressWarnings("unchecked")
  void holdsDigestsNotContentAndAppliesWithTheDirectoryFiles() throws Exception {
    Files.writeString(dir.resolve("main.tf"), "# empty");
    Files.createDirectories(dir.resolve("keys"));
    Files.writeString(dir.resolve("keys/deploy"), KEY);
    Path plan = dir.resolve("p.plan");

    save(plan);

    String text = Files.readString(plan);
    String keyBase64 = Base64.getEncoder().encodeToString(KEY.getBytes(StandardCharsets.UTF_8));
    assertThat(text)
        .contains("supportFileDigests")
        .contains("keys/deploy")
        .doesNotContain("key-body-Xy71")
        .doesNotContain(keyBase64.substring(0, 24));
    Map<String, Object> request = SavedPlan.readRunRequest(plan, ctx());
    assertThat((Map<String, String>) request.get("supportFiles"))
        .containsEntry("keys/deploy", keyBase64);
    assertThat(request)
        .containsEntry("expectedDigest", "d1")
        .doesNotContainKey("supportFileDigests");
  }

  @Test
  void refusesWhenASupportingFileChangedSinceThePlan() throws Exception {
    Files.writeString(dir.resolve("main.tf"), "# empty");
    Files.writeString(dir.resolve("deploy.key"), KEY);
    Path plan = dir.resolve("p.plan");
    save(plan);

    Files.writeString(dir.resolve("deploy.key"), KEY + "changed");

    assertThatThrownBy(() -> SavedPlan.readRunRequest(plan, ctx()))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("deploy.key")
        .hasMessageContaining("plan again");
  }
}
