package dev.stagecraft.devstack;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * Creates the {@code dev} tenant (idempotent on the state service) and, once, an admin API token
 * for it, kept in {@code credentials.json}, through the state service's tenant and token routes as
 * the operator role. A kept token is checked on every start and replaced when the state service no
 * longer knows it (e.g. the database was switched).
 */
final class DevTenantBootstrap {
  static final String TENANT = "dev";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private final String stateUrl;
  private final String operatorToken;

  /**
   * @param operatorToken the operator role's token ({@code STAGECRAFT_OPERATOR_TOKEN}): the tenant
   *     and token routes accept it, and this bootstrap is the only one that presents it
   */
  DevTenantBootstrap(String stateUrl, String operatorToken) {
    this.stateUrl = stateUrl;
    this.operatorToken = operatorToken;
  }

  /**
   * @return the dev tenant's credentials, or empty (with a warning printed) when the state service
   *     does not offer the tenant API
   */
  Optional<DevCredentials> ensure(Path credentialsFile, PrintStream out)
      throws IOException, InterruptedException {
    HttpResponse<String> tenant = post("/internal/v1/tenants", "{\"name\":\"" + TENANT + "\"}");
    if (tenant.statusCode() == 404) {
      out.println(
          "warning: state-service has no tenant API yet (POST /internal/v1/tenants answered 404);"
              + " the dev tenant and its token were not created.");
      return StackFiles.read(credentialsFile, DevCredentials.class);
    }
    expect(tenant, 200, "POST /internal/v1/tenants");
    Optional<DevCredentials> kept = StackFiles.read(credentialsFile, DevCredentials.class);
    if (kept.isPresent() && kept.get().token() != null) {
      HttpResponse<String> verify =
          post("/internal/v1/auth/verify", JSON.writeValueAsString(new Verify(kept.get().token())));
      if (verify.statusCode() != 401) {
        return kept;
      }
      out.println("The kept dev token is no longer valid; issuing a new one.");
    }
    HttpResponse<String> issued =
        post(
            "/internal/v1/tenants/" + TENANT + "/tokens",
            "{\"role\":\"admin\",\"description\":\"dev stack\"}");
    expect(issued, 201, "POST /internal/v1/tenants/dev/tokens");
    JsonNode body = JSON.readTree(issued.body());
    DevCredentials credentials = new DevCredentials(TENANT, body.path("token").asText());
    StackFiles.writeJson(credentialsFile, credentials, true);
    return Optional.of(credentials);
  }

  private record Verify(String token) {}

  private HttpResponse<String> post(String path, String body)
      throws IOException, InterruptedException {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(stateUrl + path))
            .timeout(Duration.ofSeconds(30))
            .header("Authorization", "Bearer " + operatorToken)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static void expect(HttpResponse<String> response, int status, String what) {
    if (response.statusCode() != status) {
      throw new IllegalStateException(
          "bootstrapping the dev tenant failed: "
              + what
              + " answered "
              + response.statusCode()
              + " "
              + response.body()
              + " (see logs/state-service.log)");
    }
  }
}
