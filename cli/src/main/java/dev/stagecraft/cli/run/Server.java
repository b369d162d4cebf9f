package dev.stagecraft.cli.run;

import dev.stagecraft.cli.CliContext;
import dev.stagecraft.cli.stack.StackLocator;

/** The API client for the server a command talks to. */
final class Server {
  private Server() {}

  static ApiClient client(CliContext ctx) {
    StackLocator.ServerTarget target = StackLocator.locate(ctx);
    return new ApiClient(target.address().toString(), target.token());
  }
}
