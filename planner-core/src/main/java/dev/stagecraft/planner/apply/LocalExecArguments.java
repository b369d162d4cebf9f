package dev.stagecraft.planner.apply;

import dev.stagecraft.language.config.ProvisionerDecl;
import dev.stagecraft.schemas.action.ProvisionerStep;
import java.util.List;
import java.util.Map;

/**
 * The arguments of a {@code local-exec} provisioner: {@code command}, {@code interpreter}, {@code
 * environment} (over the workspace's environment variables: {@link WorkspaceEnvironment}), {@code
 * working_dir}, {@code quiet}; run on the executor, so no connection.
 */
final class LocalExecArguments {
  private LocalExecArguments() {}

  /**
   * The step without a workspace environment; argument errors (wrong types) go to the scope's
   * diagnostics.
   */
  static ProvisionerStep resolve(
      StepScope scope, StepArguments args, int timeoutSeconds, int retries) {
    return resolve(scope, args, WorkspaceEnvironment.NONE, timeoutSeconds, retries);
  }

  /**
   * The step with {@code workspace}'s environment under the provisioner's own; a sensitive value it
   * receives makes the step sensitive and goes to the scope's secrets (each long line of a
   * multi-line one too, as for a key).
   */
  static ProvisionerStep resolve(
      StepScope scope,
      StepArguments args,
      WorkspaceEnvironment workspace,
      int timeoutSeconds,
      int retries) {
    ProvisionerDecl p = scope.provisioner();
    Map<String, String> own = args.stringMap("environment");
    List<String> secrets = workspace.secretsUnder(own);
    for (String secret : secrets) {
      scope.secrets().add(secret);
      scope.secrets().addLines(secret);
    }
    return new ProvisionerStep(
        p.type(),
        p.when(),
        p.onFailure(),
        args.string("command"),
        args.strings("interpreter"),
        workspace.under(own),
        args.string("working_dir"),
        "true".equals(args.string("quiet")),
        args.sensitive || !secrets.isEmpty(),
        null,
        null,
        null,
        null,
        null,
        null,
        timeoutSeconds,
        retries);
  }
}
