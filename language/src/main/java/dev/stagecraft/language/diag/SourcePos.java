package dev.stagecraft.language.diag;

/** A position in a source file: 1-based line and column, 0-based character offset. */
public record SourcePos(int line, int column, int offset) {
  public static final SourcePos START = new SourcePos(1, 1, 0);

  @Override
  public String toString() {
    return line + ":" + column;
  }
}
