package dev.stagecraft.planner.plan;

import dev.stagecraft.language.config.Configuration;
import dev.stagecraft.language.config.VariableDecl;
import dev.stagecraft.language.config.VariableValues;
import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.eval.SimpleEvalContext;
import dev.stagecraft.language.eval.Value;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/** The input variables of a plan's root module, as {@link ConfigModel#analyze} resolves them. */
final class InputVariables {
  private InputVariables() {}

  /**
   * The values of the configuration's input variables: raw {@code -var} text ({@code given}; those
   * named in {@code hcl} are HCL expressions, as from a variable file) converted to the declared
   * type, defaults applied, validations run. A variable named in {@code sensitiveNames} (given a
   * sensitive stored value, docs/adr/0078) is resolved exactly as one declared {@code sensitive =
   * true}. The strings inside sensitive values are added to {@code sensitiveValues}; no diagnostic
   * holds a sensitive variable's value.
   */
  static Map<String, Value> resolve(
      Configuration declared,
      Map<String, String> given,
      Set<String> hcl,
      Set<String> sensitiveNames,
      SimpleEvalContext fileContext,
      Diagnostics diagnostics,
      boolean validateOnly,
      Set<String> sensitiveValues) {
    Configuration config = withSensitive(declared, sensitiveNames);
    for (String name : given.keySet()) {
      if (!config.variables().containsKey(name)) {
        diagnostics.error(
            "Value for undeclared variable",
            "A variable named \""
                + name
                + "\" was assigned a value, but the configuration does not declare it. Declare it"
                + " with a variable \""
                + name
                + "\" block, or remove the -var option.",
            null);
      }
    }
    // raw -var text or a variable file's expression becomes a value of the declared type
    // (VariableValues applies the
    // type constraint, defaults, optional() attributes, nullable, sensitive and validation)
    Map<String, Value> values = new LinkedHashMap<>();
    for (VariableDecl v : config.variables().values()) {
      if (given.containsKey(v.name())) {
        String raw = given.get(v.name());
        VariableValues.ValueOrError parsed =
            hcl.contains(v.name())
                ? VariableValues.parseHclValue(v, raw)
                : VariableValues.parseCliValue(v, raw);
        diagnostics.addAll(
            v.sensitive() ? withoutValue(v, parsed.diagnostics()) : parsed.diagnostics());
        values.put(v.name(), parsed.value());
      } else if (validateOnly && v.required()) {
        // validate checks the configuration, not the values it will be given
        values.put(v.name(), Value.unknown());
      }
    }
    VariableValues.Resolved resolved = VariableValues.resolve(config, values, fileContext);
    resolved.diagnostics().list().stream()
        .filter(d -> d.isError() || !"Value for undeclared variable".equals(d.summary()))
        .forEach(diagnostics::add);
    Map<String, Value> variables = new LinkedHashMap<>();
    for (VariableDecl v : config.variables().values()) {
      Value value = resolved.values().get(v.name());
      if (value == null) {
        continue;
      }
      if (v.sensitive()) {
        value = value.mark(true);
        ConfigModel.collectSensitive(value, sensitiveValues);
      }
      variables.put(v.name(), value);
    }
    return variables;
  }

  /** {@code config} with the variables named in {@code names} declared sensitive. */
  private static Configuration withSensitive(Configuration config, Set<String> names) {
    if (names.stream()
        .noneMatch(
            n -> config.variables().containsKey(n) && !config.variables().get(n).sensitive())) {
      return config;
    }
    Map<String, VariableDecl> variables = new LinkedHashMap<>();
    config
        .variables()
        .forEach(
            (name, v) ->
                variables.put(name, names.contains(name) && !v.sensitive() ? sensitive(v) : v));
    return new Configuration(
        variables,
        config.resources(),
        config.locals(),
        config.outputs(),
        config.removed(),
        config.moved(),
        config.requiredVersion(),
        config.checks(),
        config.dataSources(),
        config.modules());
  }

  private static VariableDecl sensitive(VariableDecl v) {
    return new VariableDecl(
        v.name(),
        v.defaultValue(),
        v.type(),
        v.description(),
        true,
        v.nullable(),
        v.validations(),
        v.range());
  }

  /**
   * The problems of parsing a sensitive variable's value as HCL, told without the value: a parser's
   * message may quote the text it stopped at.
   */
  private static Diagnostics withoutValue(VariableDecl v, Diagnostics parsed) {
    Diagnostics out = new Diagnostics();
    if (parsed.hasErrors()) {
      out.error(
          "Invalid value for variable",
          "The value given for var."
              + v.name()
              + " is not a valid HCL expression (details left out: the value is sensitive).",
          v.range());
    }
    return out;
  }
}
