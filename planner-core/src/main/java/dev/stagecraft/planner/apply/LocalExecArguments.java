package dev.stagecraft.planner.apply;

import dev.stagecraft.language.config.ProvisionerDecl;
import dev.stagecraft.schemas.action.ProvisionerStep;

/**
 * The arguments of a {@code local-exec} provisioner: {@code command}, {@code interpreter}, {@code
 * environment}, {@code working_dir}, {@code quiet}; run on the executor, so no connection.
 */
final class LocalExecArguments {
  private LocalExecArguments() {}

  /** The step; argument errors (wrong types) go to the scope's diagnostics. */
  static ProvisionerStep resolve(
      StepScope scope, StepArguments args, int timeoutSeconds, int retries) {
    ProvisionerDecl p = scope.provisioner();
    return new ProvisionerStep(
        p.type(),
        p.when(),
        p.onFailure(),
        args.string("command"),
        args.strings("interpreter"),
        args.stringMap("environment"),
        args.string("working_dir"),
        "true".equals(args.string("quiet")),
        args.sensitive,
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
