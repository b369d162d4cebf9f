package dev.stagecraft.lock;

import dev.stagecraft.servicekit.db.RepeatableMigrationContract;

/** The lock schema's plpgsql functions as repeatable migrations (ADR 0068). */
class RepeatableMigrationTest extends RepeatableMigrationContract {
  @Override
  protected String schema() {
    return "lock";
  }
}
