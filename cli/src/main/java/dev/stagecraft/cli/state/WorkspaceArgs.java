package dev.stagecraft.cli.state;

import dev.stagecraft.cli.UsageException;
import java.util.ArrayList;
import java.util.List;

/**
 * The arguments of the state commands: {@code -workspace=NAME} (or {@code -workspace NAME}, default
 * {@code default}) and positional addresses; any other option is a usage error ({@code -} alone is
 * a positional: standard input, for {@code state push -}).
 */
record WorkspaceArgs(String workspace, List<String> positional) {

  static WorkspaceArgs parse(List<String> args) {
    String workspace = "default";
    List<String> positional = new ArrayList<>();
    for (int i = 0; i < args.size(); i++) {
      String a = args.get(i);
      if (a.startsWith("-workspace=")) {
        workspace = a.substring("-workspace=".length());
      } else if (a.equals("-workspace") && i + 1 < args.size()) {
        workspace = args.get(++i);
      } else if (a.startsWith("-") && !a.equals("-")) {
        throw new UsageException("unknown option " + a);
      } else {
        positional.add(a);
      }
    }
    return new WorkspaceArgs(workspace, List.copyOf(positional));
  }
}
