package dev.stagecraft.cli;

import dev.stagecraft.cli.run.ApplyCommand;
import dev.stagecraft.cli.run.PlanCommand;
import dev.stagecraft.cli.run.ValidateCommand;
import dev.stagecraft.cli.state.StateCommand;
import dev.stagecraft.cli.state.TaintCommand;
import java.util.Map;

/** The command table. Each command lives in the package of its feature. */
final class Commands {
  private Commands() {}

  static void registerAll(Map<String, Command> commands) {
    // dev stack: dev.stagecraft.cli.stack; runs: dev.stagecraft.cli.run; state:
    // dev.stagecraft.cli.state
    commands.put("up", new dev.stagecraft.cli.stack.UpCommand());
    commands.put("down", new dev.stagecraft.cli.stack.DownCommand());
    commands.put("env", new dev.stagecraft.cli.stack.EnvCommand());
    commands.put("validate", new ValidateCommand());
    commands.put("plan", new PlanCommand());
    commands.put("apply", new ApplyCommand(false));
    commands.put("destroy", new ApplyCommand(true));
    commands.put("state list", new StateCommand(StateCommand.Mode.LIST));
    commands.put("state show", new StateCommand(StateCommand.Mode.SHOW));
    commands.put("state pull", new StateCommand(StateCommand.Mode.PULL));
    commands.put("taint", new TaintCommand(true));
    commands.put("untaint", new TaintCommand(false));
  }
}
