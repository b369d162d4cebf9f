package dev.stagecraft.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;

/**
 * A run's page in a real browser against the shared stack, for what the first browser tests did not
 * assert: the log stream resumes after the event id a reconnecting browser sends ({@code
 * Last-Event-ID}) without repeating an entry, a failed run's failing step is marked, a refused
 * approval says why on the page (stale plan; no longer waiting), and a 10,000-line log keeps the
 * page's DOM bounded. The last also measures the page (DOM nodes, time to the log's end) against a
 * 100-line run and writes the figures to {@code target/console-page-weight.txt}
 * (docs/benchmarks.md); it asserts only the bound, not a time.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConsoleRunPageBrowserTest {
  ConsoleBrowser c;
  SharedStack stack;
  WebDriver browser;

  @BeforeAll
  void startBrowser() throws Exception {
    c = new ConsoleBrowser();
    stack = c.stack;
    browser = c.browser;
  }

  @AfterAll
  void stopBrowser() {
    if (c != null) {
      c.close();
    }
  }

  @BeforeEach
  void signedOut() {
    c.signOut();
  }

  @Test
  void theLogResumesAfterTheGivenEventIdWithoutRepeatingAnEntry() throws Exception {
    String ws = autoApplied("console-resume-");
    String run = c.startRun(stack.token(), ws, "resume");
    c.awaitStatus(run, "applied");
    c.signIn(stack.token());
    browser.get(stack.plannerUrl() + "/console/runs/" + run);
    String path = "/console/runs/" + run + "/log";
    List<String[]> all = events((String) c.fetch(path).get("text")); // ends with the run
    assertThat(all.size()).as("entries of an applied run").isGreaterThan(4);
    String middle = all.get(all.size() / 2)[0];
    List<String[]> resumed =
        events((String) c.fetch(path, Map.of("Last-Event-ID", middle)).get("text"));
    List<String[]> expected = all.subList(all.size() / 2 + 1, all.size());
    assertThat(resumed.stream().map(e -> e[0] + " " + e[1]).toList())
        .as("exactly the entries after %s, none repeated", middle)
        .containsExactlyElementsOf(expected.stream().map(e -> e[0] + " " + e[1]).toList());
    assertThat(all.stream().map(e -> e[1]).toList()).anyMatch(d -> d.contains("console-line-a"));
  }

  @Test
  void aFailedRunMarksItsFailingStepInTheLogAndOnTheTimeline() throws Exception {
    String ws = autoApplied("console-failed-");
    String run =
        c.startRunOf(
            stack.token(),
            ws,
            """
            resource "stateful_provisioning" "a" {
              state_key = "a"
              provisioner "local-exec" {
                command = "echo console-line-a"
              }
            }
            resource "stateful_provisioning" "b" {
              state_key = "b"
              provisioner "local-exec" {
                command = "echo console-about-to-fail; exit 3"
              }
            }
            """);
    c.awaitStatus(run, "errored");
    c.signIn(stack.token());
    browser.get(stack.plannerUrl() + "/console/runs/" + run);
    c.waitFor()
        .until(ExpectedConditions.textToBePresentInElementLocated(By.id("log-state"), "Ended"));
    var failed = browser.findElements(By.cssSelector("#log .action.failed"));
    assertThat(failed).as("one failing step marked").hasSize(1);
    assertThat(failed.get(0).getText()).startsWith("stateful_provisioning.b failed");
    assertThat(browser.findElements(By.cssSelector("#timeline .bar")))
        .as("one bar per action")
        .hasSize(2);
    assertThat(browser.findElements(By.cssSelector("#timeline .bar.failed")))
        .as("the failed action's bar")
        .hasSize(1);
    assertThat(browser.findElement(By.id("log")).getText())
        .contains("console-about-to-fail")
        .doesNotContain("stateful_provisioning.a failed");
  }

  @Test
  void aRefusedApprovalSaysWhyOnThePage() throws Exception {
    String ws = c.workspace(stack.token(), "console-refused-");
    String run = c.startRun(stack.token(), ws);
    c.awaitStatus(run, "planned");
    c.signIn(stack.token());
    browser.get(stack.plannerUrl() + "/console/runs/" + run);
    // the plan changed since the page was drawn: the page names a digest that is not the run's
    ((JavascriptExecutor) browser)
        .executeScript(
            "document.querySelector('input[name=planDigest]').value = 'sha256:another-plan';");
    browser.findElement(By.id("approve")).click();
    c.waitFor().until(ExpectedConditions.visibilityOfElementLocated(By.id("notice")));
    assertThat(browser.findElement(By.id("notice")).getText())
        .startsWith("Could not approve: Plan digest sha256:another-plan is not the plan of run");
    assertThat(browser.findElement(By.id("run-status")).getText()).isEqualTo("planned");

    // discarded elsewhere: a live page drops its buttons, a page that missed it is told why
    c.api("POST", "/api/v1/runs/" + run + "/discard", stack.token(), Map.of());
    c.awaitStatus(run, "discarded");
    String csrf = browser.findElement(By.name("_csrf")).getAttribute("value");
    String digest =
        ConsoleBrowser.JSON
            .readTree(c.api("GET", "/api/v1/runs/" + run, stack.token(), null))
            .get("planDigest")
            .asText();
    Map<?, ?> late =
        c.post(
            "/console/runs/" + run + "/approve",
            "_csrf=" + csrf + "&planDigest=" + digest.replace(":", "%3A"));
    assertThat(late.get("status")).isEqualTo(409L);
    assertThat((String) late.get("text"))
        .contains("id=\"notice\">Could not approve: Run " + run + " is not waiting for approval");
  }

  @Test
  void aTenThousandLineLogKeepsTheRunPageBounded() throws Exception {
    String ws = autoApplied("console-weight-");
    String small = c.startRunOf(stack.token(), ws, lines(100));
    c.awaitStatus(small, "applied");
    String large = c.startRunOf(stack.token(), ws, lines(10_000));
    c.awaitStatus(large, "applied");
    c.signIn(stack.token());
    long[] smallPage = load(small);
    long[] largePage = load(large);
    assertThat(browser.findElement(By.cssSelector("#log .dropped")).getText())
        .matches("\\d+ earlier lines not shown.*");
    assertThat(largePage[1]).as("log entries kept in the DOM").isLessThanOrEqualTo(2_001);
    assertThat(largePage[0]).as("DOM nodes of the page").isLessThan(smallPage[0] + 2_100);
    String figures =
        "run page, 100-line log: %d DOM nodes, %d log elements, %d ms to the log's end%n"
                .formatted(smallPage[0], smallPage[1], smallPage[2])
            + "run page, 10,000-line log: %d DOM nodes, %d log elements, %d ms to the log's end%n"
                .formatted(largePage[0], largePage[1], largePage[2])
            + "ratio (10,000 / 100): %.1fx DOM nodes, %.1fx time%n"
                .formatted(
                    (double) largePage[0] / smallPage[0], (double) largePage[2] / smallPage[2]);
    System.out.print(figures);
    Files.writeString(Path.of("target", "console-page-weight.txt"), figures);
  }

  /** Opens the run's page and waits for its log to end: DOM nodes, log entries, milliseconds. */
  private long[] load(String run) {
    long start = System.nanoTime();
    browser.get(stack.plannerUrl() + "/console/runs/" + run);
    c.waitFor()
        .until(ExpectedConditions.textToBePresentInElementLocated(By.id("log-state"), "Ended"));
    long ms = (System.nanoTime() - start) / 1_000_000;
    JavascriptExecutor js = (JavascriptExecutor) browser;
    long nodes = (Long) js.executeScript("return document.getElementsByTagName('*').length;");
    long kept = (Long) js.executeScript("return document.getElementById('log').childElementCount;");
    return new long[] {nodes, kept, ms};
  }

  private String autoApplied(String prefix) throws Exception {
    String ws = prefix + UUID.randomUUID().toString().substring(0, 8);
    c.api("POST", "/api/v1/workspaces", stack.token(), Map.of("name", ws, "autoApply", true));
    return ws;
  }

  private static String lines(int n) {
    return """
        resource "stateful_provisioning" "log" {
          state_key = "%d"
          provisioner "local-exec" {
            command = "seq 1 %d"
          }
        }
        """
        .formatted(n, n);
  }

  /** The events of a Server-Sent Events body: {id, data}, in order. */
  private static List<String[]> events(String body) {
    List<String[]> out = new ArrayList<>();
    for (String block : body.split("\n\n")) {
      String id = null;
      String data = null;
      for (String line : block.split("\n")) {
        if (line.startsWith("id:")) {
          id = line.substring(3).strip();
        } else if (line.startsWith("data:")) {
          data = line.substring(5).strip();
        }
      }
      if (id != null) {
        out.add(new String[] {id, data});
      }
    }
    return out;
  }
}
