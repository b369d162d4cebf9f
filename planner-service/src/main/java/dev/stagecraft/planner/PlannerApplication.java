package dev.stagecraft.planner;

import dev.stagecraft.platform.tracing.Tracing;
import io.micronaut.runtime.Micronaut;
import io.swagger.v3.oas.annotations.OpenAPIDefinition;
import io.swagger.v3.oas.annotations.info.Info;

/**
 * Entry point of the planner-service process. The OpenAPI document of the public API is generated
 * from the controllers at compile time and served at {@code /api/v1/openapi.yml}.
 */
@OpenAPIDefinition(
    info =
        @Info(
            title = "stagecraft",
            version = "v1",
            description =
                "The public API of Stagecraft: runs, plans, workspaces, configuration versions,"
                    + " tenants, tokens (docs/runs.md)."))
public final class PlannerApplication {
  private PlannerApplication() {}

  public static void main(String[] args) {
    // traces over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set, else none (docs/adr/0083)
    Tracing.start("planner-service");
    Micronaut.run(PlannerApplication.class, args);
  }
}
