package dev.stagecraft.systemtest;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A strict reader of the Prometheus text exposition format 0.0.4 (what {@code /prometheus} serves):
 * every line is a {@code # HELP}, a {@code # TYPE} or a sample; a sample's family has its TYPE
 * declared before it (a histogram's or summary's {@code _bucket}, {@code _count}, {@code _sum} and
 * a counter's {@code _total} included), label values are quoted with only the format's escapes, and
 * values are numbers or {@code ±Inf} / {@code NaN}. Anything else throws, naming the line.
 */
final class PrometheusText {
  private static final Pattern NAME = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
  private static final Pattern TYPE =
      Pattern.compile("# TYPE (" + NAME + ") (counter|gauge|histogram|summary|untyped)");
  private static final Pattern HELP = Pattern.compile("# HELP (" + NAME + ") .*");
  private static final Pattern SAMPLE =
      Pattern.compile("(" + NAME + ")(\\{(.*)\\})? (\\S+)( -?[0-9]+)?");
  private static final Pattern LABEL =
      Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\\\n]|\\\\[\\\\\"n])*)\"(,|$)");
  private static final Set<String> SUFFIXES =
      Set.of("_bucket", "_count", "_sum", "_total", "_created", "_gcount", "_gsum");

  /** One sample: its metric name, labels and value. */
  record Sample(String name, Map<String, String> labels, double value) {}

  private final List<Sample> samples;

  private PrometheusText(List<Sample> samples) {
    this.samples = samples;
  }

  static PrometheusText parse(String text) {
    Map<String, String> types = new HashMap<>();
    List<Sample> samples = new ArrayList<>();
    int n = 0;
    for (String line : text.split("\n", -1)) {
      n++;
      if (line.isEmpty()) {
        continue;
      }
      if (line.startsWith("#")) {
        Matcher t = TYPE.matcher(line);
        if (t.matches()) {
          if (types.put(t.group(1), t.group(2)) != null) {
            throw bad(n, line, "a second TYPE of the same family");
          }
        } else if (!HELP.matcher(line).matches()) {
          throw bad(n, line, "a comment that is neither HELP nor TYPE");
        }
        continue;
      }
      Matcher s = SAMPLE.matcher(line);
      if (!s.matches()) {
        throw bad(n, line, "not a sample");
      }
      String name = s.group(1);
      if (!types.containsKey(family(name, types))) {
        throw bad(n, line, "a sample of a family without TYPE");
      }
      samples.add(new Sample(name, labels(n, line, s.group(3)), value(n, line, s.group(4))));
    }
    return new PrometheusText(samples);
  }

  private static String family(String name, Map<String, String> types) {
    if (types.containsKey(name)) {
      return name;
    }
    for (String suffix : SUFFIXES) {
      if (name.endsWith(suffix)) {
        return name.substring(0, name.length() - suffix.length());
      }
    }
    return name;
  }

  private static Map<String, String> labels(int n, String line, String body) {
    Map<String, String> labels = new LinkedHashMap<>();
    if (body == null || body.isEmpty()) {
      return labels;
    }
    Matcher m = LABEL.matcher(body);
    int at = 0;
    while (at < body.length()) {
      if (!m.find(at) || m.start() != at) {
        throw bad(n, line, "malformed labels at column " + at);
      }
      if (labels.put(m.group(1), m.group(2)) != null) {
        throw bad(n, line, "label " + m.group(1) + " twice");
      }
      at = m.end();
    }
    return labels;
  }

  private static double value(int n, String line, String text) {
    return switch (text) {
      case "+Inf" -> Double.POSITIVE_INFINITY;
      case "-Inf" -> Double.NEGATIVE_INFINITY;
      case "NaN" -> Double.NaN;
      default -> {
        try {
          yield Double.parseDouble(text);
        } catch (NumberFormatException e) {
          throw bad(n, line, "value " + text + " is not a number");
        }
      }
    };
  }

  private static IllegalArgumentException bad(int n, String line, String why) {
    return new IllegalArgumentException("line " + n + " (" + why + "): " + line);
  }

  /** Every sample. */
  List<Sample> samples() {
    return samples;
  }

  /** The sum of the samples named {@code name} whose labels include {@code labels} (0: none). */
  double sum(String name, Map<String, String> labels) {
    return samples.stream()
        .filter(s -> s.name().equals(name))
        .filter(s -> s.labels().entrySet().containsAll(labels.entrySet()))
        .mapToDouble(Sample::value)
        .sum();
  }

  double sum(String name) {
    return sum(name, Map.of());
  }

  /** Whether any sample's name starts with {@code prefix}. */
  boolean has(String prefix) {
    return samples.stream().anyMatch(s -> s.name().startsWith(prefix));
  }
}
