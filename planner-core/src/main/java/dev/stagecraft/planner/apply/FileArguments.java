package dev.stagecraft.planner.apply;

import dev.stagecraft.language.config.ProvisionerDecl;
import dev.stagecraft.schemas.action.ProvisionerStep;
import dev.stagecraft.schemas.action.SshConnection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * The arguments of a {@code file} provisioner: exactly one of {@code content} or {@code source} (a
 * file, or a directory uploaded whole), and the required {@code destination}, copied over SSH.
 */
final class FileArguments {
  private FileArguments() {}

  /**
   * The step over {@code ssh} (null when the connection had errors, already reported); null when
   * the scope has errors.
   */
  static ProvisionerStep resolve(
      StepScope scope, StepArguments args, SshConnection ssh, int timeoutSeconds, int retries) {
    String content = null;
    Map<String, String> files = null;
    if (scope.exactlyOne(args, "content", "source")) {
      if (args.has("content")) {
        content = args.string("content");
      } else {
        String source = args.string("source");
        if (source != null) {
          Path path = scope.files().path(source, args.decl("source"));
          if (path != null && Files.isDirectory(path)) {
            files = scope.files().directory(source, path, args.decl("source"));
          } else if (path != null) {
            content = scope.files().readText(source, args.decl("source"), "source file");
          }
        }
      }
    }
    ProvisionerDecl p = scope.provisioner();
    String destination = args.string("destination");
    if (destination == null || destination.isEmpty()) {
      scope
          .diagnostics()
          .error(
              "Missing required argument",
              "The argument \"destination\" is required in " + scope.where() + ".",
              args.has("destination") ? args.decl("destination").range() : p.range());
    }
    if (scope.diagnostics().hasErrors()) {
      return null;
    }
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
        null,
        null,
        destination,
        content,
        files,
        timeoutSeconds,
        retries);
  }
}
