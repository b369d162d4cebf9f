package dev.stagecraft.language.diag;

/**
 * A half-open range of characters in one source file. {@code toString()} is {@code file:line:col}.
 */
public record SourceRange(String file, SourcePos start, SourcePos end) {

  public static SourceRange of(String file, SourcePos start, SourcePos end) {
    return new SourceRange(file, start, end);
  }

  /** A range for values that did not come from a file (e.g. built by a caller). */
  public static SourceRange synthetic(String what) {
    return new SourceRange(what, SourcePos.START, SourcePos.START);
  }

  /** The smallest range covering this one and {@code other} (same file assumed). */
  public SourceRange to(SourceRange other) {
    SourcePos s = start.offset() <= other.start.offset() ? start : other.start;
    SourcePos e = end.offset() >= other.end.offset() ? end : other.end;
    return new SourceRange(file, s, e);
  }

  public int line() {
    return start.line();
  }

  public int column() {
    return start.column();
  }

  @Override
  public String toString() {
    return file + ":" + start.line() + ":" + start.column();
  }
}
