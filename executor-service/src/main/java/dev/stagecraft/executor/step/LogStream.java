package dev.stagecraft.executor.step;

/** Where a line of action output came from. */
public enum LogStream {
  /** The command's standard output. */
  STDOUT("stdout"),
  /** The command's standard error. */
  STDERR("stderr"),
  /** Messages of the executor itself (the command echo, ignored errors, refusals). */
  SYSTEM("system");

  private final String wireName;

  LogStream(String wireName) {
    this.wireName = wireName;
  }

  /** The name used in {@code ActionLog.stream}. */
  public String wireName() {
    return wireName;
  }
}
