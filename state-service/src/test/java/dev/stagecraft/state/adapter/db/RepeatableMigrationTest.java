package dev.stagecraft.state.adapter.db;

import dev.stagecraft.servicekit.db.RepeatableMigrationContract;

/** The state schema's plpgsql functions as repeatable migrations (ADR 0068). */
class RepeatableMigrationTest extends RepeatableMigrationContract {
  @Override
  protected String schema() {
    return "state";
  }
}
