package dev.stagecraft.planner.apply;

import dev.stagecraft.language.config.ProvisionerDecl;
import dev.stagecraft.schemas.action.ProvisionerStep;
import dev.stagecraft.schemas.action.SshConnection;
import java.util.ArrayList;
import java.util.List;

/**
 * The arguments of a {@code remote-exec} provisioner: exactly one of {@code inline} (commands),
 * {@code script} or {@code scripts} (files read now, relative to the configuration directory), run
 * over SSH.
 */
final class RemoteExecArguments {
  private RemoteExecArguments() {}

  /**
   * The step over {@code ssh} (null when the connection had errors, already reported); null when
   * the scope has errors.
   */
  static ProvisionerStep resolve(
      StepScope scope, StepArguments args, SshConnection ssh, int timeoutSeconds, int retries) {
    List<String> inline = null;
    List<String> scripts = null;
    if (scope.exactlyOne(args, "inline", "script", "scripts")) {
      if (args.has("inline")) {
        inline = args.strings("inline");
      } else if (args.has("script")) {
        String path = args.string("script");
        scripts = new ArrayList<>();
        if (path != null) {
          scripts.add(scope.files().readText(path, args.decl("script"), "script"));
        }
      } else {
        scripts = new ArrayList<>();
        for (String path : args.strings("scripts")) {
          scripts.add(scope.files().readText(path, args.decl("scripts"), "script"));
        }
      }
    }
    if (scope.diagnostics().hasErrors()) {
      return null;
    }
    ProvisionerDecl p = scope.provisioner();
    return new ProvisionerStep(
        p.type(),
        p.when(),
        p.onFailure(),
        null,
        null,
        null,
        null,
        false,
        args.sensitive,
        ssh,
        inline,
        scripts,
        null,
        null,
        null,
        timeoutSeconds,
        retries);
  }
}
