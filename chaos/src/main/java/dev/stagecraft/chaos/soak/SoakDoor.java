package dev.stagecraft.chaos.soak;

import java.io.IOException;
import java.util.List;
import java.util.Random;
import java.util.function.BooleanSupplier;

/**
 * A way into the stack other than starting runs through the REST API (the Terraform HTTP backend,
 * chat-ops triggers): the {@link Workload} runs each door on a thread of its own beside its run
 * workers, on workspaces of the door's own, and prints what it counted at the end.
 */
interface SoakDoor {
  /** A short name for the thread and the summary. */
  String name();

  /** Creates what the door needs (workspaces, secrets) once the tenants exist. */
  void setUp(List<Workload.Tenant> tenants) throws IOException, InterruptedException;

  /**
   * Goes through the door again and again while {@code goOn} says so; each round finished (its runs
   * followed to their end, its locks released) before the next.
   */
  void work(Random random, BooleanSupplier goOn) throws InterruptedException;

  /** What it did, e.g. {@code 40 pushes, 2 unknown}. */
  String summary();
}
