package dev.stagecraft.chaos.soak;

import dev.stagecraft.devstack.DevStack;
import dev.stagecraft.devstack.StackService;
import java.util.OptionalLong;

/** A service process the dev stack started (its first planner and executor, state, lock). */
final class StackInstance implements SoakInstance {
  private final String name;
  private final DevStack stack;
  private final StackService service;

  StackInstance(String name, DevStack stack, StackService service) {
    this.name = name;
    this.stack = stack;
    this.service = service;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public OptionalLong pid() {
    return stack.pid(service);
  }

  @Override
  public void kill() throws Exception {
    stack.kill(service);
  }

  @Override
  public void restart() throws Exception {
    if (stack.pid(service).isEmpty()) {
      try {
        stack.startAgain(service);
      } catch (IllegalStateException alreadyRunning) {
        // the supervisor started it again meanwhile (a fenced planner exits 75 and is restarted)
      }
    }
  }
}
