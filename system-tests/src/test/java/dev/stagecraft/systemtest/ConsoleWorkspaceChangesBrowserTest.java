package dev.stagecraft.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;

/**
 * The workspace page's changes to state in a real browser against the shared stack: an admin rolls
 * the state back to an earlier version after a confirmation that shows what it changes, taints and
 * untaints a resource instance, and removes a known host; a reader is offered none of these and its
 * forged posts are refused (403) with nothing changed. One workspace with two applies (different
 * {@code state_key}s) for the class; screenshots and axe-core as {@link ConsoleBrowserTest}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConsoleWorkspaceChangesBrowserTest {
  private static final ObjectMapper JSON = ConsoleBrowser.JSON;

  ConsoleBrowser c;
  SharedStack stack;
  WebDriver browser;
  String ws;
  String first;
  String second;

  @BeforeAll
  void twoAppliesInOneWorkspace() throws Exception {
    c = new ConsoleBrowser();
    stack = c.stack;
    browser = c.browser;
    ws = "console-changes-" + UUID.randomUUID().toString().substring(0, 8);
    c.api("POST", "/api/v1/workspaces", stack.token(), Map.of("name", ws, "autoApply", true));
    first = c.startRun(stack.token(), ws, "revision-one");
    c.awaitStatus(first, "applied");
    second = c.startRun(stack.token(), ws, "revision-two");
    c.awaitStatus(second, "applied");
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
  void anAdminRollsTheStateBackAfterAConfirmationShowingWhatItChanges() throws Exception {
    c.signIn(stack.token());
    browser.get(stack.plannerUrl() + "/console/workspaces/" + ws);
    String target = lastVersionOf(first);
    versionRow(target).findElement(By.cssSelector("a.rollback")).click();
    c.waitFor().until(ExpectedConditions.visibilityOfElementLocated(By.id("confirm-rollback")));
    assertThat(browser.findElement(By.tagName("h1")).getText())
        .isEqualTo("Roll back " + ws + " to version " + target + "?");
    String changes = browser.findElement(By.id("diff")).getText();
    assertThat(changes).contains("stateful_provisioning.a").contains("state_key");
    assertThat(changes.indexOf("revision-two"))
        .as("now revision-two, after the rollback revision-one")
        .isLessThan(changes.indexOf("revision-one"))
        .isNotNegative();
    c.shot("workspace-rollback");
    assertThat(c.seriousViolations()).as("axe-core on the rollback confirmation").isEmpty();
    assertThat(stateKeyOfA())
        .as("nothing changed before the confirmation")
        .isEqualTo("revision-two");

    browser.findElement(By.id("confirm-rollback")).click();
    c.waitFor().until(ExpectedConditions.urlToBe(stack.plannerUrl() + "/console/workspaces/" + ws));
    assertThat(browser.findElements(By.id("notice"))).isEmpty();
    List<WebElement> newest =
        browser
            .findElements(By.cssSelector("#versions tbody tr"))
            .get(0)
            .findElements(By.tagName("td"));
    assertThat(newest.get(2).getText()).as("the newest version's type").contains("rolled_back");
    assertThat(stateKeyOfA()).isEqualTo("revision-one");
    JsonNode state = JSON.readTree(c.state("GET", "/api/v1/workspaces/" + ws + "/state", null));
    assertThat(state.path("serial").asLong()).isGreaterThan(Long.parseLong(target));
    assertThat(browser.findElement(By.id("lock-state")).getText())
        .as("the lock taken for the rollback was released")
        .isEqualTo("Not locked.");
  }

  @Test
  void anAdminTaintsAndUntaintsAResourceInstanceFromTheWorkspacePage() throws Exception {
    c.signIn(stack.token());
    browser.get(stack.plannerUrl() + "/console/workspaces/" + ws);
    By status = By.cssSelector("#resources tr[data-address='stateful_provisioning.b'] .status");
    assertThat(browser.findElement(status).getText()).isEqualTo("ok");
    browser
        .findElement(By.cssSelector("button[aria-label='Taint stateful_provisioning.b']"))
        .click();
    c.waitFor().until(ExpectedConditions.textToBe(status, "tainted"));
    assertThat(instanceStatus("stateful_provisioning", "b")).isEqualTo("tainted");
    ((JavascriptExecutor) browser)
        .executeScript("document.getElementById('resources-h').scrollIntoView();");
    c.shot("workspace-resources");
    assertThat(c.seriousViolations()).as("axe-core on a workspace with resources").isEmpty();

    browser
        .findElement(By.cssSelector("button[aria-label='Untaint stateful_provisioning.b']"))
        .click();
    c.waitFor().until(ExpectedConditions.textToBe(status, "ok"));
    assertThat(instanceStatus("stateful_provisioning", "b")).isEmpty();
  }

  @Test
  void anAdminRemovesAKnownHostFromTheWorkspacePage() throws Exception {
    String host = "console-" + UUID.randomUUID().toString().substring(0, 8) + ".example";
    c.api(
        "POST",
        "/api/v1/known-hosts",
        stack.token(),
        Map.of("host", host, "port", 2222, "publicKey", publicKey()));
    c.signIn(stack.token());
    browser.get(stack.plannerUrl() + "/console/workspaces/" + ws);
    By row = By.xpath("//table[@id='host-keys']//tr[td[text()='" + host + ":2222']]");
    assertThat(browser.findElement(row).getText())
        .contains("known host (whole tenant)")
        .contains("SHA256:");
    browser.findElement(row).findElement(By.tagName("button")).click();
    c.waitFor().until(ExpectedConditions.invisibilityOfElementLocated(row));
    assertThat(c.api("GET", "/api/v1/known-hosts", stack.token(), null)).doesNotContain(host);
  }

  @Test
  void aReaderIsOfferedNoChangesAndItsForgedPostsAreRefused() throws Exception {
    String reader =
        JSON.readTree(c.api("POST", "/api/v1/tokens", stack.token(), Map.of("role", "reader")))
            .get("token")
            .asText();
    c.signIn(reader);
    browser.get(stack.plannerUrl() + "/console/workspaces/" + ws);
    assertThat(browser.findElement(By.id("resources")).getText())
        .contains("stateful_provisioning.a");
    assertThat(browser.findElements(By.cssSelector("a.rollback"))).isEmpty();
    assertThat(browser.findElements(By.cssSelector("#resources button"))).isEmpty();
    assertThat(browser.findElements(By.cssSelector("#host-keys button"))).isEmpty();

    String serial = lastVersionOf(first);
    String before = c.state("GET", "/api/v1/workspaces/" + ws + "/state", null);
    String csrf = browser.findElement(By.name("_csrf")).getAttribute("value");
    Map<?, ?> rollback =
        c.post("/console/workspaces/" + ws + "/rollback", "_csrf=" + csrf + "&serial=" + serial);
    assertThat(rollback.get("status")).isEqualTo(403L);
    assertThat((String) rollback.get("text")).contains("only an admin may roll");
    Map<?, ?> taint =
        c.post(
            "/console/workspaces/" + ws + "/taint",
            "_csrf=" + csrf + "&address=stateful_provisioning.a");
    assertThat(taint.get("status")).isEqualTo(403L);
    Map<?, ?> confirm = c.fetch("/console/workspaces/" + ws + "/rollback?serial=" + serial);
    assertThat(confirm.get("status")).isEqualTo(403L);
    Map<?, ?> noCsrf =
        c.post("/console/workspaces/" + ws + "/untaint", "address=stateful_provisioning.a");
    assertThat(noCsrf.get("status")).isEqualTo(403L);
    assertThat(c.state("GET", "/api/v1/workspaces/" + ws + "/state", null))
        .as("the state is unchanged")
        .isEqualTo(before);
  }

  /** The serial of the newest state version {@code run} wrote, from the versions table. */
  private String lastVersionOf(String run) {
    for (WebElement row : browser.findElements(By.cssSelector("#versions tbody tr"))) {
      List<WebElement> cells = row.findElements(By.tagName("td"));
      if (cells.get(3).getText().equals(run)) {
        return cells.get(0).getText();
      }
    }
    throw new AssertionError("run " + run + " wrote no state version");
  }

  private WebElement versionRow(String serial) {
    return browser.findElement(
        By.xpath("//table[@id='versions']/tbody/tr[td[1][text()='" + serial + "']]"));
  }

  private String stateKeyOfA() throws Exception {
    return instance("stateful_provisioning", "a").path("attributes").path("state_key").asText();
  }

  /** The instance's status in the current state ("tainted", or empty). */
  private String instanceStatus(String type, String name) throws Exception {
    return instance(type, name).path("status").asText("");
  }

  private JsonNode instance(String type, String name) throws Exception {
    JsonNode state = JSON.readTree(c.state("GET", "/api/v1/workspaces/" + ws + "/state", null));
    for (JsonNode r : state.path("resources")) {
      if (type.equals(r.path("type").asText()) && name.equals(r.path("name").asText())) {
        return r.path("instances").path(0);
      }
    }
    throw new AssertionError("no " + type + "." + name + " in the state");
  }

  /** An OpenSSH ed25519 public key line (its key part need only be well-formed base64). */
  private static String publicKey() {
    byte[] blob = new byte[51];
    new Random(7).nextBytes(blob);
    return "ssh-ed25519 " + Base64.getEncoder().encodeToString(blob);
  }
}
