package dev.stagecraft.devstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.stagecraft.platform.auth.ServiceCredentials;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Keeps docker-compose.yml valid without a Docker engine: {@code docker-compose config} (Debian's
 * docker-compose 1.29, installed by dev/test) rejects unknown keys and wrong types. Also pins what
 * the file must not do: default a secret, publish an internal port, give the executors a token.
 */
class DockerComposeConfigTest {
  /** {@code ${VAR:?message}}: compose stops with the message when VAR is unset or empty. */
  private static final Pattern REQUIRED = Pattern.compile("\\$\\{([A-Z0-9_]+):\\?");

  @TempDir Path tmp;

  @Test
  void dockerComposeFileIsValidWithEveryRequiredVariableSet() throws Exception {
    Result r = compose(allRequired(), "config", "-q");

    assertThat(r.exitValue()).as("docker-compose config -q said:\n%s", r.output()).isZero();
    assertThat(r.output())
        .as("docker-compose config -q output")
        .doesNotContainIgnoringCase("error");
  }

  @Test
  void everySecretIsRequiredWithoutADefault() throws Exception {
    String file = Files.readString(TestRepo.root().resolve("docker-compose.yml"));

    assertThat(required())
        .contains(
            "STAGECRAFT_SERVICE_TOKEN_PLANNER",
            "STAGECRAFT_SERVICE_TOKEN_STATE",
            "STAGECRAFT_OPERATOR_TOKEN",
            "STAGECRAFT_SECRETS_KEYS",
            "STAGECRAFT_DB_PASSWORD")
        .containsAll(
            List.of("BROKER", "ADMIN", "PLANNER", "EXECUTOR", "STATE", "LOCK", "TRIGGER").stream()
                .map(p -> "STAGECRAFT_KAFKA_" + p + "_PASSWORD")
                .toList());
    assertThat(file)
        .doesNotContainPattern("\\$\\{[A-Z0-9_]*(TOKEN|PASSWORD|KEYS|SECRET)[A-Z0-9_]*:?-")
        .doesNotContain(ServiceCredentials.RETIRED_VARIABLE + ":")
        .doesNotContain(ServiceCredentials.RETIRED_VARIABLE + "}");
  }

  @Test
  void composeStopsNamingEachRequiredVariableThatIsMissing() throws Exception {
    for (String variable : required()) {
      Map<String, String> env = allRequired();
      env.remove(variable);

      Result r = compose(env, "config", "-q");

      assertThat(r.exitValue()).as("without %s: %s", variable, r.output()).isNotZero();
      assertThat(r.output()).as("without %s", variable).contains("set " + variable);
    }
  }

  @Test
  void onlyThePlannerTheStateServiceAndLocalDashboardsArePublishedAndTheExecutorHoldsNoToken()
      throws Exception {
    Result r = compose(allRequired(), "config");
    assertThat(r.exitValue()).as(r.output()).isZero();
    JsonNode services = new ObjectMapper(new YAMLFactory()).readTree(r.output()).get("services");

    List<String> published = new ArrayList<>();
    services
        .fieldNames()
        .forEachRemaining(
            name -> {
              if (services.get(name).has("ports")) {
                published.add(name);
              }
            });
    assertThat(published)
        .containsExactlyInAnyOrder("planner-service", "state-service", "prometheus", "grafana");
    // the dashboards are for the operator on the host only, never another network
    for (String local : List.of("prometheus", "grafana")) {
      assertThat(services.get(local).get("ports").toString()).as(local).contains("127.0.0.1");
    }
    assertThat(tokenVariables(services.get("executor-service"))).isEmpty();
    assertThat(tokenVariables(services.get("planner-service")))
        .containsExactly("STAGECRAFT_SERVICE_TOKEN_PLANNER");
    assertThat(tokenVariables(services.get("lock-service")))
        .containsExactly("STAGECRAFT_SERVICE_TOKEN_PLANNER", "STAGECRAFT_SERVICE_TOKEN_STATE");
    assertThat(tokenVariables(services.get("state-service")))
        .containsExactly(
            "STAGECRAFT_OPERATOR_TOKEN",
            "STAGECRAFT_SERVICE_TOKEN_PLANNER",
            "STAGECRAFT_SERVICE_TOKEN_STATE");
  }

  private static Set<String> tokenVariables(JsonNode service) {
    Set<String> names = new TreeSet<>();
    service.get("environment").fieldNames().forEachRemaining(names::add);
    names.removeIf(name -> !ServiceCredentials.isCredentialVariable(name));
    return names;
  }

  private static Set<String> required() throws IOException {
    Matcher m = REQUIRED.matcher(Files.readString(TestRepo.root().resolve("docker-compose.yml")));
    Set<String> names = new TreeSet<>();
    while (m.find()) {
      names.add(m.group(1));
    }
    return names;
  }

  /** A distinct value for every required variable. */
  private static Map<String, String> allRequired() throws IOException {
    Map<String, String> env = new HashMap<>();
    for (String name : required()) {
      env.put(name, "test-" + name.toLowerCase());
    }
    return env;
  }

  private record Result(int exitValue, String output) {}

  /** docker-compose with only {@code env} for the file's variables (no .env, no STAGECRAFT_*). */
  private Result compose(Map<String, String> env, String... args) throws Exception {
    Path emptyEnvFile = Files.writeString(tmp.resolve("empty.env"), "");
    List<String> command =
        new ArrayList<>(
            List.of(
                "docker-compose",
                "--env-file",
                emptyEnvFile.toString(),
                "-f",
                "docker-compose.yml"));
    command.addAll(List.of(args));
    ProcessBuilder builder =
        new ProcessBuilder(command).directory(TestRepo.root().toFile()).redirectErrorStream(true);
    builder.environment().keySet().removeIf(name -> name.startsWith("STAGECRAFT_"));
    builder.environment().putAll(env);
    Process p;
    try {
      p = builder.start();
    } catch (IOException e) {
      fail(
          "docker-compose is not installed, so docker-compose.yml cannot be validated. Run the"
              + " tests with dev/test (it installs the docker-compose package), or: apt-get"
              + " install -y docker-compose");
      return null;
    }
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("docker-compose finished").isTrue();
    return new Result(p.exitValue(), output);
  }
}
