package dev.stagecraft.language.config;

import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.syntax.Body;

/**
 * Data sources are not supported (Stagecraft implements no provider that reads them): a {@code
 * data} block, at the top level or scoped in a {@code check} block, is an error, and the common
 * ones get the Stagecraft way instead.
 */
final class UnsupportedDataSources {
  private UnsupportedDataSources() {}

  /**
   * Reports {@code data "TYPE" "NAME" { ... }} (its labels already checked); at the top level,
   * {@code terraform_remote_state} is supported (and named).
   */
  static void report(Body.Block b, Diagnostics d, boolean topLevel) {
    String type = b.labels().get(0);
    String instead =
        switch (type) {
          case "local_file" ->
              " Read the file with file(\"path\") (its content) or filemd5(\"path\") and"
                  + " filesha256(\"path\") (a digest); the file travels with the"
                  + " configuration.";
          case "template_file" ->
              " Render the template with templatefile(\"path\", { name = value }) (Terraform"
                  + " deprecated the template_file data source for it too).";
          case "external" ->
              " Stagecraft runs no program while planning: run it in a local-exec provisioner"
                  + " of a stateful_provisioning resource, whose state_key decides when it runs"
                  + " again.";
          default -> "";
        };
    d.error(
        "Unsupported data source",
        "Data sources (data \""
            + type
            + "\") are not supported by Stagecraft"
            + (topLevel
                ? "; the one supported data source is terraform_remote_state."
                : " in a check block.")
            + instead,
        b.typeRange());
  }
}
