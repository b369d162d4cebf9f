package dev.stagecraft.language.syntax;

/** Token kinds of HCL native syntax, including the template-mode tokens of a modal lexer. */
public enum TokenType {
  IDENT,
  NUMBER,
  NEWLINE,
  EOF,
  LBRACE,
  RBRACE,
  LBRACK,
  RBRACK,
  LPAREN,
  RPAREN,
  COMMA,
  DOT,
  ELLIPSIS,
  EQUAL,
  EQEQ,
  NOTEQ,
  LT,
  LE,
  GT,
  GE,
  PLUS,
  MINUS,
  STAR,
  SLASH,
  PERCENT,
  AND,
  OR,
  BANG,
  QUESTION,
  COLON,
  /** {@code ::}, the function namespace separator ({@code provider::p::f(...)}). */
  DOUBLE_COLON,
  FATARROW,
  /** Opening {@code "} of a quoted template. */
  OQUOTE,
  /** Closing {@code "} of a quoted template. */
  CQUOTE,
  /** Raw (undecoded) literal text inside a template. */
  TEMPLATE_LIT,
  /** {@code ${} or {@code ${~}. */
  TEMPLATE_INTERP,
  /** {@code %{} or {@code %{~}. */
  TEMPLATE_CONTROL,
  /** {@code }} or {@code ~}} closing an interpolation or directive. */
  TEMPLATE_SEQ_END,
  /** {@code <<EOT} or {@code <<-EOT} including the newline. */
  HEREDOC_BEGIN,
  HEREDOC_END,
  INVALID;
}
