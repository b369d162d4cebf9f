package dev.stagecraft.language.oracle;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A seeded generator of Terraform configurations that exercise every form of HCL native syntax
 * (literals of each kind, string escapes, templates with interpolations, {@code %{if}}/{@code
 * %{for}} directives and strip markers, heredocs, every operator, conditionals, for expressions,
 * splats, indexes, calls with expansion, tuples, objects, nested and one-line blocks, bare and
 * quoted labels, all comment styles), plus mutated variants (a missing brace, an unterminated
 * string, a stray token, ...) that are usually invalid. The same seed always gives the same files.
 */
final class CorpusGenerator {
  /** One generated file. */
  record Case(String name, String text) {}

  private final Random rnd;
  private int names;

  CorpusGenerator(long seed) {
    this.rnd = new Random(seed);
  }

  /** {@code valid} generated configurations followed by {@code mutated} mutations of them. */
  List<Case> generate(int valid, int mutated) {
    List<Case> out = new ArrayList<>();
    List<String> texts = new ArrayList<>();
    for (int i = 0; i < valid; i++) {
      String text = config(i);
      texts.add(text);
      out.add(new Case(String.format("gen%03d", i), text));
    }
    for (int i = 0; i < mutated; i++) {
      String base = texts.get(rnd.nextInt(texts.size()));
      int kind = i % MUTATIONS;
      out.add(new Case(String.format("mut%03d_%s", i, MUTATION_NAMES[kind]), mutate(base, kind)));
    }
    return out;
  }

  // ------------------------------------------------------------------ configurations

  private String config(int i) {
    names = 0;
    StringBuilder sb = new StringBuilder();
    comment(sb, "");
    switch (i % 4) {
      case 0 -> {
        sb.append("variable \"").append(ident()).append("\" {\n");
        sb.append("  type    = ")
            .append(pick("string", "list(string)", "map(number)", "any"))
            .append('\n');
        sb.append("  default = ").append(expr(2, "  ")).append("\n}\n\n");
      }
      case 1 -> sb.append("terraform {\n  required_version = \">= 1.5\"\n}\n\n");
      default -> {}
    }
    if (rnd.nextInt(3) == 0) {
      attributes(sb, "", 1 + rnd.nextInt(2));
    }
    int blocks = 1 + rnd.nextInt(3);
    for (int b = 0; b < blocks; b++) {
      switch (rnd.nextInt(6)) {
        case 0 -> locals(sb);
        case 1 -> output(sb);
        default -> resource(sb);
      }
      sb.append('\n');
      comment(sb, "");
    }
    if (rnd.nextInt(4) == 0) {
      sb.append(pick("removed", "moved"))
          .append(" {\n  from = null_resource.")
          .append(ident())
          .append("\n}\n");
    }
    return sb.toString();
  }

  private void locals(StringBuilder sb) {
    sb.append("locals {\n");
    attributes(sb, "  ", 2 + rnd.nextInt(5));
    sb.append("}\n");
  }

  private void output(StringBuilder sb) {
    sb.append("output \"").append(ident()).append("\" {\n");
    sb.append("  value = ").append(expr(3, "  ")).append('\n');
    if (rnd.nextBoolean()) {
      sb.append("  sensitive = ").append(pick("true", "false")).append('\n');
    }
    sb.append("}\n");
  }

  private void resource(StringBuilder sb) {
    String type = pick("null_resource", "terraform_data", "stateful_provisioning");
    boolean bare = rnd.nextInt(8) == 0;
    sb.append("resource ")
        .append(bare ? type : "\"" + type + "\"")
        .append(' ')
        .append(bare ? ident() : "\"" + ident() + "\"")
        .append(" {\n");
    String in = "  ";
    if (rnd.nextInt(3) == 0) {
      sb.append(in)
          .append(pick("count", "for_each"))
          .append(" = ")
          .append(expr(2, in))
          .append('\n');
    }
    switch (type) {
      case "terraform_data" -> {
        sb.append(in).append("input = ").append(expr(3, in)).append('\n');
        sb.append(in).append("triggers_replace = ").append(expr(2, in)).append('\n');
      }
      case "stateful_provisioning" ->
          sb.append(in).append("state_key = ").append(template(2, in)).append('\n');
      default -> sb.append(in).append("triggers = ").append(object(2, in)).append('\n');
    }
    attributes(sb, in, rnd.nextInt(3));
    int nested = rnd.nextInt(4);
    for (int n = 0; n < nested; n++) {
      comment(sb, in);
      switch (rnd.nextInt(5)) {
        case 0 -> {
          sb.append(in).append("lifecycle {\n");
          sb.append(in)
              .append("  create_before_destroy = ")
              .append(pick("true", "false"))
              .append('\n');
          sb.append(in)
              .append("  ignore_changes = [")
              .append(pick("triggers", "input", "tags"))
              .append(", ]\n");
          if (rnd.nextBoolean()) {
            sb.append(in).append("  precondition {\n");
            sb.append(in).append("    condition     = ").append(expr(2, in + "    ")).append('\n');
            sb.append(in).append("    error_message = ").append(template(1, in)).append('\n');
            sb.append(in).append("  }\n");
          }
          sb.append(in).append("}\n");
        }
        case 1 -> {
          // one-line block
          sb.append(in)
              .append("provisioner \"local-exec\" { command = ")
              .append(template(1, in))
              .append(" }\n");
        }
        case 2 -> {
          sb.append(in)
              .append("provisioner \"")
              .append(pick("local-exec", "remote-exec", "file"))
              .append("\" {\n");
          sb.append(in)
              .append("  command = ")
              .append(rnd.nextBoolean() ? heredoc(in + "  ") : template(2, in))
              .append('\n');
          sb.append(in)
              .append("  when = ")
              .append(pick("destroy", "create", "\"create\""))
              .append('\n');
          if (rnd.nextBoolean()) {
            sb.append(in).append("  connection {\n");
            sb.append(in).append("    type = \"ssh\"\n");
            sb.append(in).append("    host = ").append(expr(1, in + "    ")).append('\n');
            sb.append(in).append("  }\n");
          }
          sb.append(in).append("}\n");
        }
        case 3 -> {
          sb.append(in).append("dynamic \"setting\" {\n");
          sb.append(in).append("  for_each = ").append(expr(2, in + "  ")).append('\n');
          sb.append(in).append("  content {\n");
          sb.append(in).append("    name = setting.key\n");
          sb.append(in).append("    value = setting.value\n");
          sb.append(in).append("  }\n");
          sb.append(in).append("}\n");
        }
        default -> sb.append(in).append(pick("empty", "marker")).append(" {}\n");
      }
    }
    sb.append("}\n");
  }

  private void attributes(StringBuilder sb, String in, int n) {
    for (int a = 0; a < n; a++) {
      if (rnd.nextInt(5) == 0) {
        comment(sb, in);
      }
      String value = rnd.nextInt(6) == 0 ? heredoc(in) : expr(3, in);
      sb.append(in).append(ident()).append(rnd.nextBoolean() ? " = " : " =  ").append(value);
      if (!value.startsWith("<<") && rnd.nextInt(6) == 0) {
        sb.append(pick(" # trailing", " // trailing", " /* trailing */"));
      }
      sb.append('\n');
    }
  }

  private void comment(StringBuilder sb, String in) {
    switch (rnd.nextInt(6)) {
      case 0 -> sb.append(in).append("# hash comment with \"quotes\" and ${not_interpolated}\n");
      case 1 -> sb.append(in).append("// slash comment { not a block\n");
      case 2 -> sb.append(in).append("/* block comment\n").append(in).append("   over lines */\n");
      default -> {}
    }
  }

  // ------------------------------------------------------------------ expressions

  private String expr(int depth, String in) {
    if (depth <= 0) {
      return rnd.nextBoolean() ? literal() : traversal();
    }
    return switch (rnd.nextInt(17)) {
      case 0, 1 -> literal();
      case 2, 3 -> traversal();
      case 4 -> template(depth - 1, in);
      case 5 -> binary(depth, in);
      case 6 -> "(" + expr(depth - 1, in) + ")";
      case 7 -> expr(depth - 1, in) + " ? " + expr(depth - 1, in) + " : " + expr(depth - 1, in);
      case 8 -> pick("-", "!") + pick(traversal(), "(" + expr(depth - 1, in) + ")");
      case 9 -> call(depth, in);
      case 10 -> tuple(depth, in);
      case 11 -> object(depth, in);
      case 12 -> forExpr(depth, in);
      case 13 -> splat();
      case 14 -> traversal() + "[" + expr(depth - 1, in) + "]";
      case 15 -> pick("-", "") + number();
      default -> binary(depth, in);
    };
  }

  private String binary(int depth, String in) {
    String op = pick("+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "&&", "||");
    String left = expr(depth - 1, in);
    String right = expr(depth - 1, in);
    if (rnd.nextInt(3) == 0) {
      // a chain exercising precedence
      return left + " " + op + " " + right + " " + pick("*", "+", "||", "==") + " " + traversal();
    }
    return left + (rnd.nextInt(5) == 0 ? op : " " + op + " ") + right;
  }

  private String call(int depth, String in) {
    String f =
        pick(
            "upper",
            "join",
            "format",
            "concat",
            "merge",
            "length",
            "coalesce",
            "max",
            "try",
            "jsonencode");
    int n = rnd.nextInt(4);
    List<String> args = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      args.add(expr(depth - 1, in));
    }
    if (n == 0) {
      return f + "()";
    }
    boolean expand = rnd.nextInt(4) == 0;
    if (rnd.nextInt(4) == 0) {
      StringBuilder sb = new StringBuilder(f).append("(\n");
      for (int i = 0; i < n; i++) {
        sb.append(in).append("  ").append(args.get(i));
        if (i == n - 1 && expand) {
          sb.append("...");
        }
        if (i < n - 1 || (!expand && rnd.nextBoolean())) {
          sb.append(',');
        }
        sb.append('\n');
      }
      return sb.append(in).append(')').toString();
    }
    return f + "(" + String.join(", ", args) + (expand ? "..." : "") + ")";
  }

  private String tuple(int depth, String in) {
    int n = rnd.nextInt(4);
    List<String> els = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      els.add(expr(depth - 1, in));
    }
    if (n > 0 && rnd.nextInt(3) == 0) {
      StringBuilder sb = new StringBuilder("[\n");
      for (String e : els) {
        sb.append(in).append("  ").append(e).append(",\n");
      }
      return sb.append(in).append(']').toString();
    }
    return "[" + String.join(", ", els) + (n > 0 && rnd.nextInt(4) == 0 ? "," : "") + "]";
  }

  private String object(int depth, String in) {
    int n = rnd.nextInt(4);
    List<String> items = new ArrayList<>();
    List<String> usedKeys = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String key;
      do {
        key =
            switch (rnd.nextInt(5)) {
              case 0 -> "\"" + ident() + "-key\"";
              case 1 -> "(" + traversal() + ")";
              default -> ident();
            };
      } while (usedKeys.contains(key));
      usedKeys.add(key);
      items.add(key + (rnd.nextInt(4) == 0 ? ": " : " = ") + expr(depth - 1, in + "  "));
    }
    if (n == 0) {
      return "{}";
    }
    if (rnd.nextBoolean()) {
      StringBuilder sb = new StringBuilder("{\n");
      for (String item : items) {
        sb.append(in).append("  ").append(item).append(rnd.nextInt(4) == 0 ? ",\n" : "\n");
      }
      return sb.append(in).append('}').toString();
    }
    return "{ " + String.join(", ", items) + " }";
  }

  private String forExpr(int depth, String in) {
    String coll =
        pick("var.items", "local.map", "null_resource.web[*].id", "range(3)", "{ a = 1, b = 2 }");
    boolean two = rnd.nextBoolean();
    String vars = two ? "k, v" : "v";
    String cond =
        rnd.nextBoolean() ? " if " + pick("v != null", "k != \"skip\"", "length(v) > 0") : "";
    if (!two && cond.contains("k ")) {
      cond = "";
    }
    String value = pick("v", "upper(v)", "\"${v}-x\"", "[v, 1]", expr(depth - 1, in));
    if (rnd.nextBoolean()) {
      return "[for " + vars + " in " + coll + " : " + value + cond + "]";
    }
    String key = two ? pick("k", "\"${k}\"", "upper(k)") : pick("v", "tostring(v)");
    String group = rnd.nextInt(3) == 0 ? "..." : "";
    return "{for " + vars + " in " + coll + " : " + key + " => " + value + group + cond + "}";
  }

  private String splat() {
    return pick(
        "null_resource.web[*].id",
        "null_resource.web.*.id",
        "var.list[*]",
        "local.objs[*].name",
        "var.list.*.tags",
        "terraform_data.x[*].output.value");
  }

  private String traversal() {
    return pick(
        "var." + ident(),
        "local." + ident(),
        "null_resource.web[0].id",
        "var.map[\"key\"]",
        "var.list[1].name",
        "count.index",
        "each.key",
        "each.value.name",
        "self.triggers",
        "path.module",
        "terraform.workspace",
        "var.legacy.0.id",
        "data.external.x.result",
        "module.net.vpc_id");
  }

  private String literal() {
    return switch (rnd.nextInt(6)) {
      case 0 -> number();
      case 1 -> pick("true", "false");
      case 2 -> "null";
      default -> quoted();
    };
  }

  private String number() {
    return pick(
        "0", "1", "42", "3.14", "1e3", "2.5E-2", "1.50", "100000000000000000000", "0.001", "7e+2");
  }

  private String quoted() {
    return "\""
        + pick(
            "plain",
            "",
            "with \\\"quotes\\\"",
            "tab\\tnewline\\n",
            "back\\\\slash",
            "unicode \\u00e9 \\U0001F600 é",
            "escaped $${not} and %%{not}",
            "dollar $ and percent %",
            "100%",
            "a $$ b")
        + "\"";
  }

  private String template(int depth, String in) {
    StringBuilder sb = new StringBuilder("\"");
    int parts = 1 + rnd.nextInt(3);
    for (int i = 0; i < parts; i++) {
      switch (rnd.nextInt(7)) {
        case 0, 1 -> sb.append(pick("text ", "deploy-", " and ", "x=", "\\n", "é ", "$${lit} "));
        case 2 ->
            sb.append("${")
                .append(pick("", "~", " "))
                .append(inline(depth))
                .append(pick("", "~", " "))
                .append("}");
        case 3 ->
            sb.append("%{")
                .append(pick(" ", "~ "))
                .append("if ")
                .append(pick("var.enabled", "length(var.items) > 0", "local.a == \"b\""))
                .append(pick(" ", " ~"))
                .append("}")
                .append(pick("yes", "${var.a}", ""))
                .append(rnd.nextBoolean() ? "%{ else }" + pick("no", "${var.b}", "") : "")
                .append("%{")
                .append(pick(" ", "~ "))
                .append("endif")
                .append(pick(" ", " ~"))
                .append("}");
        case 4 ->
            sb.append("%{ for ")
                .append(pick("x", "i, x"))
                .append(" in ")
                .append(pick("var.items", "local.list", "[1, 2]"))
                .append(pick(" ", " ~"))
                .append("}${x}")
                .append(pick(",", " ", ""))
                .append("%{")
                .append(pick(" ", "~ "))
                .append("endfor }");
        default -> sb.append("${").append(inline(depth)).append("}");
      }
    }
    return sb.append('"').toString();
  }

  /** An expression that is safe inside a quoted template on one line. */
  private String inline(int depth) {
    return switch (rnd.nextInt(8)) {
      case 0 -> "upper(" + traversal() + ")";
      case 1 -> traversal() + " + " + number();
      case 2 -> traversal() + " ? \"a\" : \"b\"";
      case 3 -> "\"nested ${" + traversal() + "}\"";
      case 4 -> depth > 0 ? splat() : number();
      case 5 -> "join(\",\", " + traversal() + ")";
      default -> traversal();
    };
  }

  private String heredoc(String in) {
    boolean indented = rnd.nextBoolean();
    String marker = pick("EOT", "EOF", "SCRIPT");
    StringBuilder sb = new StringBuilder(indented ? "<<-" : "<<").append(marker).append('\n');
    String body = indented ? in + "  " + pick("", "  ") : "";
    sb.append(body).append("#!/bin/sh\n");
    sb.append(body)
        .append("echo \"deploying ${var.revision}\" > /tmp/${")
        .append(traversal())
        .append("}\n");
    if (rnd.nextBoolean()) {
      sb.append(body).append("  %{ if var.debug }set -x%{ endif }\n");
    }
    if (rnd.nextBoolean()) {
      // "~}" before an indented line of a "<<-" heredoc is a known difference (see
      // corpus/edge/heredoc_flush_strip_*.tf), so flush heredocs loop without strip markers
      String strip = indented ? "" : "~";
      sb.append(body)
          .append("%{ for h in var.hosts ")
          .append(strip)
          .append("}\n")
          .append(body)
          .append("ping ${h}\n")
          .append(body)
          .append("%{ endfor ")
          .append(strip)
          .append("}\n");
    }
    sb.append(body).append("literal $${HOME} and 100%\n");
    sb.append(indented ? in : "").append(marker);
    return sb.toString();
  }

  private String ident() {
    names++;
    return pick(
            "app",
            "db",
            "web",
            "cache",
            "queue",
            "api",
            "job",
            "net",
            "disk",
            "user_name",
            "with-dash",
            "v2",
            "_under")
        + "_"
        + names;
  }

  @SafeVarargs
  private <T> T pick(T... options) {
    return options[rnd.nextInt(options.length)];
  }

  // ------------------------------------------------------------------ mutations

  private static final String[] MUTATION_NAMES = {
    "missing_close_brace",
    "unterminated_string",
    "stray_token",
    "missing_equals",
    "truncated",
    "duplicate_attribute",
    "bracket_mismatch",
    "unterminated_heredoc",
    "unclosed_interpolation",
    "unclosed_directive",
    "newline_in_expression",
    "deleted_char",
  };
  private static final int MUTATIONS = MUTATION_NAMES.length;

  private String mutate(String text, int kind) {
    return switch (kind) {
      case 0 -> deleteOne(text, "}");
      case 1 -> deleteOne(text, "\"");
      case 2 -> {
        int p = rnd.nextInt(text.length() + 1);
        yield text.substring(0, p)
            + pick(" } ", " ) ", " = ", " @ ", " , ", " ] ", " ? ", " ...")
            + text.substring(p);
      }
      case 3 -> deleteOne(text, " = ");
      case 4 -> text.substring(0, rnd.nextInt(Math.max(1, text.length())));
      case 5 -> {
        String[] lines = text.split("\n", -1);
        List<Integer> attrs = new ArrayList<>();
        for (int i = 0; i < lines.length; i++) {
          if (lines[i].matches("\\s*[a-z_][a-z0-9_-]* = [^\\[{(<]*")) {
            attrs.add(i);
          }
        }
        if (attrs.isEmpty()) {
          yield text + "\na = 1\na = 2\n";
        }
        int i = attrs.get(rnd.nextInt(attrs.size()));
        StringBuilder sb = new StringBuilder();
        for (int j = 0; j < lines.length; j++) {
          sb.append(lines[j]).append(j < lines.length - 1 ? "\n" : "");
          if (j == i) {
            sb.append(lines[j]).append('\n');
          }
        }
        yield sb.toString();
      }
      case 6 -> {
        String r = replaceOne(text, "]", ")");
        yield r.equals(text) ? text + "\nx = [1, 2)\n" : r;
      }
      case 7 -> {
        int i = text.indexOf("<<");
        yield i < 0
            ? text + "\nh = <<EOT\nnever closed\n"
            : text.substring(0, i) + "<<NEVER_CLOSED" + text.substring(text.indexOf('\n', i));
      }
      case 8 -> {
        String r = replaceOne(text, "${", "${ (");
        yield r.equals(text) ? text + "\ns = \"${var.x\"\n" : r;
      }
      case 9 -> {
        String r = replaceOne(text, "%{ endif }", "");
        if (r.equals(text)) {
          r = replaceOne(text, "%{ endfor }", "");
        }
        yield r.equals(text) ? text + "\nt = \"%{ if true }x\"\n" : r;
      }
      case 10 -> {
        String r = replaceOne(text, " + ", " +\n");
        if (r.equals(text)) {
          r = replaceOne(text, " ? ", "\n? ");
        }
        yield r.equals(text) ? text + "\nn = 1 +\n2\n" : r;
      }
      default -> {
        int p = rnd.nextInt(Math.max(1, text.length()));
        yield text.substring(0, p) + text.substring(Math.min(text.length(), p + 1));
      }
    };
  }

  private String deleteOne(String text, String what) {
    return replaceOne(text, what, "");
  }

  /** Replaces a randomly chosen occurrence of {@code what}. */
  private String replaceOne(String text, String what, String with) {
    List<Integer> at = new ArrayList<>();
    for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + 1)) {
      at.add(i);
    }
    if (at.isEmpty()) {
      return text;
    }
    int i = at.get(rnd.nextInt(at.size()));
    return text.substring(0, i) + with + text.substring(i + what.length());
  }
}
