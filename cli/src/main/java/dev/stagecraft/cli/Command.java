package dev.stagecraft.cli;

import java.util.List;

/** One CLI command. Returns the process exit code (Terraform's conventions, design §10). */
public interface Command {
  int run(CliContext context, List<String> args) throws Exception;

  /** One line for the usage text. */
  String synopsis();
}
