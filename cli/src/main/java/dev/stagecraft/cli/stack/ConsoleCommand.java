package dev.stagecraft.cli.stack;

import dev.stagecraft.cli.CliContext;
import dev.stagecraft.cli.Command;
import dev.stagecraft.cli.UsageException;
import dev.stagecraft.cli.run.ApiClient;
import java.io.IOException;
import java.util.List;
import java.util.Locale;

/**
 * {@code stagecraft console [-open]}: prints the web console's address (from the server's discovery
 * document, {@code console}), and with {@code -open} also asks the desktop to open it ({@code
 * xdg-open}, {@code open} on macOS). Sign in there with the API token ({@code stagecraft env}).
 */
public final class ConsoleCommand implements Command {

  @Override
  public int run(CliContext ctx, List<String> args) throws Exception {
    boolean open = false;
    for (String a : args) {
      if (a.equals("-open") || a.equals("--open")) {
        open = true;
      } else {
        throw new UsageException("console takes only -open (got " + a + ")");
      }
    }
    StackLocator.ServerTarget target = StackLocator.locate(ctx);
    String address = target.address().toString();
    String console;
    try {
      console = new ApiClient(address, target.token()).api("console");
    } catch (IOException | ApiClient.ApiException e) {
      // a server from before the console named no "console": it is where the planner serves it
      console = address + "/console";
    }
    ctx.out().println(console);
    if (open) {
      String opener =
          System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("mac")
              ? "open"
              : "xdg-open";
      try {
        new ProcessBuilder(opener, console).inheritIO().start();
      } catch (IOException e) {
        ctx.err().println("Could not open a browser (" + opener + "): open the address above.");
        return 1;
      }
    }
    return 0;
  }

  @Override
  public String synopsis() {
    return "console [-open]           print (or open) the web console's address";
  }
}
