package dev.stagecraft.planner;

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
    Micronaut.run(PlannerApplication.class, args);
  }
}
