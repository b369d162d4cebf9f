package dev.stagecraft.planner.apply;

import dev.stagecraft.language.config.BlockDecl;
import dev.stagecraft.language.config.ProvisionerDecl;
import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.eval.EvalContext;
import dev.stagecraft.planner.plan.ConfigModel;
import dev.stagecraft.schemas.action.ProvisionerStep;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Builds one {@link ProvisionerStep} at dispatch time: evaluates the provisioner's arguments
 * ({@link StepArguments}) and its connection (the provisioner's own, else the resource's: {@link
 * ConnectionResolver}), then hands them to the provisioner type's arguments ({@link
 * LocalExecArguments}, {@link RemoteExecArguments}, {@link FileArguments}). Files are read relative
 * to the configuration directory ({@link StepFiles}); every secret (passwords, private keys) goes
 * to the action's sensitive values ({@link SecretCollector}).
 */
final class StepResolver {
  /** A resolved step and the evaluated connection attributes it came with (empty when none). */
  record Resolved(ProvisionerStep step, Map<String, Object> connection) {}

  private StepResolver() {}

  /**
   * Resolves {@code p} ({@code environment}: the workspace's, for a {@code local-exec} step); adds
   * its diagnostics to {@code diagnostics} and returns empty when any is an error.
   */
  static Optional<Resolved> resolve(
      ConfigModel model,
      ProvisionerDecl p,
      Optional<BlockDecl> resourceConnection,
      EvalContext ctx,
      Diagnostics diagnostics,
      Set<String> sensitive,
      WorkspaceEnvironment environment) {
    StepScope scope = StepScope.of(p, model::evaluateExpression, ctx, sensitive);
    Optional<Resolved> resolved = resolve(scope, resourceConnection, environment);
    diagnostics.addAll(scope.diagnostics());
    return scope.diagnostics().hasErrors() ? Optional.empty() : resolved;
  }

  private static Optional<Resolved> resolve(
      StepScope scope, Optional<BlockDecl> resourceConnection, WorkspaceEnvironment environment) {
    StepArguments args = scope.evaluate(scope.provisioner().attributes(), false);
    ConnectionResolver connection = new ConnectionResolver(scope, resourceConnection);
    if (scope.diagnostics().hasErrors()) {
      return Optional.empty();
    }
    int timeoutSeconds = args.seconds("timeout", 0);
    int retries = args.wholeNumber("retries", 0, 0, Integer.MAX_VALUE);
    String type = scope.provisioner().type();
    ProvisionerStep step =
        switch (type) {
          case "local-exec" ->
              LocalExecArguments.resolve(scope, args, environment, timeoutSeconds, retries);
          case "remote-exec" ->
              RemoteExecArguments.resolve(scope, args, connection.ssh(), timeoutSeconds, retries);
          case "file" ->
              FileArguments.resolve(scope, args, connection.ssh(), timeoutSeconds, retries);
          default -> {
            scope
                .diagnostics()
                .error(
                    "Unsupported provisioner type",
                    "The provisioner type \"" + type + "\" is not supported.",
                    scope.provisioner().range());
            yield null;
          }
        };
    return step == null
        ? Optional.empty()
        : Optional.of(new Resolved(step, connection.attributes()));
  }
}
