package dev.stagecraft.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
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
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;

/**
 * The web console in a real browser (Debian's headless Chromium, driven through its chromedriver;
 * no browser or driver is downloaded) against the shared stack: sign-in, the runs list changing
 * without a reload, a run's plan, live log and timeline, approval from the page, a reader's page
 * and forged posts, CSRF, and another tenant's run. One browser for the class ({@link
 * ConsoleBrowser}). Screenshots of the main pages land in {@code target/console-screenshots}
 * (copied to docs/console).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConsoleBrowserTest {
  private static final ObjectMapper JSON = ConsoleBrowser.JSON;
  private static final Duration WAIT = ConsoleBrowser.WAIT;

  ConsoleBrowser c;
  SharedStack stack;
  WebDriver browser;

  @BeforeAll
  void startStackAndBrowser() throws Exception {
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
  void aRunStartedThroughTheApiAppearsChangesStateAndIsApprovedFromItsPage() throws Exception {
    String ws = c.workspace(stack.token(), "console-");
    c.signIn(stack.token());
    browser.get(stack.plannerUrl() + "/console/runs?workspace=" + ws);
    assertThat(browser.findElement(By.tagName("h1")).getText()).isEqualTo("Runs");
    ((JavascriptExecutor) browser).executeScript("window.notReloaded = true;");

    Map<?, ?> script = c.fetch("/console/assets/console.js");
    assertThat(script.get("status")).as("the console's script").isEqualTo(200L);
    c.waitFor().until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("p.conn")));
    String run = c.startRun(stack.token(), ws);
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              Map<?, ?> live = c.fetch("/console/runs/live?workspace=" + ws);
              assertThat(live.get("status")).as("the list's live part").isEqualTo(200L);
              assertThat((String) live.get("text")).as("the list's live part").contains(run);
            });
    By row = By.cssSelector("tr[data-run='" + run + "'] .status");
    c.waitFor().until(ExpectedConditions.textToBe(row, "planned"));
    assertThat(((JavascriptExecutor) browser).executeScript("return window.notReloaded"))
        .as("the list changed without a reload")
        .isEqualTo(true);
    assertThat(Integer.parseInt(browser.findElement(By.id("count-waiting")).getText()))
        .isGreaterThanOrEqualTo(1);
    c.shot("runs");
    assertThat(c.seriousViolations()).as("axe-core on the runs list").isEmpty();

    browser.findElement(By.linkText(run)).click();
    c.waitFor().until(ExpectedConditions.visibilityOfElementLocated(By.id("plan")));
    assertThat(browser.findElement(By.id("plan")).getText())
        .contains("stateful_provisioning.a will be created")
        .contains("stateful_provisioning.b will be created");
    assertThat(browser.findElement(By.id("transitions")).getText()).contains("planned");
    browser.findElement(By.id("approve")).click();

    c.waitFor().until(ExpectedConditions.textToBe(By.id("run-status"), "applied"));
    c.waitFor()
        .until(ExpectedConditions.textToBePresentInElementLocated(By.id("log"), "console-line-a"));
    String log = browser.findElement(By.id("log")).getText();
    assertThat(log).contains("console-line-a").contains("console-line-b");
    List<WebElement> bars = browser.findElements(By.cssSelector("#timeline .bar"));
    assertThat(bars).as("one bar per action").hasSize(2);
    assertThat(browser.findElement(By.id("timeline")).getText())
        .contains("stateful_provisioning.a on ")
        .contains("stateful_provisioning.b on ");
    assertThat(browser.findElement(By.cssSelector(".facts")).getText()).contains("admin@dev");
    assertThat(browser.findElements(By.id("cancel"))).as("nothing to decide once ended").isEmpty();
    c.shot("run");
    ((JavascriptExecutor) browser)
        .executeScript("document.getElementById('timeline-h').scrollIntoView();");
    c.shot("run-log");
    assertThat(c.seriousViolations()).as("axe-core on a run").isEmpty();
  }

  @Test
  void aLostConnectionSaysSoOnTheRunsListWhichCatchesUpOnceItIsBack() throws Exception {
    String ws = c.workspace(stack.token(), "console-offline-");
    c.signIn(stack.token());
    browser.get(stack.plannerUrl() + "/console/runs?workspace=" + ws);
    By note = By.cssSelector("p.conn");
    c.waitFor().until(ExpectedConditions.presenceOfElementLocated(note));
    String run;
    c.offline(true);
    try {
      c.waitFor().until(ExpectedConditions.textToBe(note, "Connection lost; retrying…"));
      run = c.startRun(stack.token(), ws); // the API is reached outside the browser
      c.awaitStatus(run, "planned");
      assertThat(browser.findElements(By.cssSelector("tr[data-run='" + run + "']")))
          .as("not shown while the browser is cut off")
          .isEmpty();
    } finally {
      c.offline(false);
    }
    By row = By.cssSelector("tr[data-run='" + run + "'] .status");
    c.waitFor().until(ExpectedConditions.textToBe(row, "planned"));
    assertThat(browser.findElement(note).getText()).isEmpty();
    c.api("POST", "/api/v1/runs/" + run + "/discard", stack.token(), Map.of());
  }

  @Test
  void aReaderSeesNoDecisionsAndItsForgedApprovalIsRefused() throws Exception {
    String ws = c.workspace(stack.token(), "console-reader-");
    String run = c.startRun(stack.token(), ws);
    c.awaitStatus(run, "planned");
    String reader = c.api("POST", "/api/v1/tokens", stack.token(), Map.of("role", "reader"));
    c.signIn(JSON.readTree(reader).get("token").asText());
    browser.get(stack.plannerUrl() + "/console/runs/" + run);
    assertThat(browser.findElement(By.id("run-status")).getText()).isEqualTo("planned");
    assertThat(browser.findElements(By.id("approve"))).isEmpty();
    assertThat(browser.findElements(By.id("cancel"))).isEmpty();

    String digest =
        JSON.readTree(c.api("GET", "/api/v1/runs/" + run, stack.token(), null))
            .get("planDigest")
            .asText();
    String csrf = browser.findElement(By.name("_csrf")).getAttribute("value");
    Map<?, ?> forged =
        c.post("/console/runs/" + run + "/approve", "_csrf=" + csrf + "&planDigest=" + digest);
    assertThat(forged.get("status")).isEqualTo(403L);
    assertThat((String) forged.get("text")).contains("A reader token cannot approve");
    c.awaitStatus(run, "planned");
    c.api("POST", "/api/v1/runs/" + run + "/discard", stack.token(), Map.of());
  }

  @Test
  void aPostWithoutTheCsrfTokenIsRefused() throws Exception {
    String ws = c.workspace(stack.token(), "console-csrf-");
    String run = c.startRun(stack.token(), ws);
    c.awaitStatus(run, "planned");
    c.signIn(stack.token());
    browser.get(stack.plannerUrl() + "/console/runs/" + run);
    Map<?, ?> forged = c.post("/console/runs/" + run + "/cancel", "");
    assertThat(forged.get("status")).isEqualTo(403L);
    assertThat((String) forged.get("text")).contains("CSRF token is missing or wrong");
    Map<?, ?> wrong = c.post("/console/runs/" + run + "/cancel", "_csrf=guessed");
    assertThat(wrong.get("status")).isEqualTo(403L);
    c.awaitStatus(run, "planned");
    browser.findElement(By.id("discard")).click();
    c.waitFor().until(ExpectedConditions.textToBe(By.id("run-status"), "discarded"));
  }

  @Test
  void anotherTenantsRunIsNotFoundAndSignOutEndsTheSession() throws Exception {
    String ws = c.workspace(stack.token(), "console-tenant-");
    String run = c.startRun(stack.token(), ws);
    String tenant = "console-" + UUID.randomUUID().toString().substring(0, 8);
    String other =
        JSON.readTree(c.api("POST", "/api/v1/tenants", stack.token(), Map.of("name", tenant)))
            .get("token")
            .asText();
    c.signIn(other);
    browser.get(stack.plannerUrl() + "/console/runs/" + run);
    assertThat(browser.findElement(By.tagName("h1")).getText()).isEqualTo("Not found");
    assertThat(browser.findElement(By.tagName("main")).getText())
        .contains("There is no run " + run);
    browser.get(stack.plannerUrl() + "/console/runs");
    assertThat(browser.findElement(By.id("runs")).getText()).doesNotContain(run);

    browser.findElement(By.xpath("//button[text()='Sign out']")).click();
    c.waitFor().until(ExpectedConditions.urlContains("/console/sign-in"));
    browser.get(stack.plannerUrl() + "/console/runs");
    c.waitFor().until(ExpectedConditions.urlContains("/console/sign-in"));
    c.awaitStatus(run, "planned");
    c.api("POST", "/api/v1/runs/" + run + "/discard", stack.token(), Map.of());
  }

  @Test
  void aRevokedTokenEndsItsSession() throws Exception {
    String description = "console-revoke-" + UUID.randomUUID();
    String token =
        JSON.readTree(
                c.api(
                    "POST",
                    "/api/v1/tokens",
                    stack.token(),
                    Map.of("role", "deployer", "description", description)))
            .get("token")
            .asText();
    c.signIn(token);
    assertThat(browser.findElement(By.cssSelector(".who")).getText()).contains("deployer");
    String id = null;
    for (JsonNode t :
        JSON.readTree(c.api("GET", "/api/v1/tokens", stack.token(), null)).get("tokens")) {
      if (description.equals(t.path("description").asText())) {
        id = t.get("id").asText();
      }
    }
    assertThat(id).as("the token's id").isNotNull();
    c.api("POST", "/api/v1/tokens/" + id + "/revoke", stack.token(), Map.of());
    // the planner's token check caches an answer for at most 15 s (TokenVerifier.TTL)
    c.waitFor()
        .until(
            d -> {
              d.navigate().refresh();
              return d.getCurrentUrl().contains("/console/sign-in");
            });
  }

  @Test
  void aWrongTokenIsRefusedAtSignIn() throws Exception {
    JsonNode discovery =
        JSON.readTree(c.api("GET", "/.well-known/stagecraft.json", stack.token(), null));
    assertThat(discovery.get("console").asText()).isEqualTo(stack.plannerUrl() + "/console");
    assertThat(discovery.get("openapi").asText()).endsWith("/api/v1/openapi.yml");
    browser.get(discovery.get("console").asText());
    c.waitFor().until(ExpectedConditions.urlContains("/console/sign-in"));
    c.shot("sign-in");
    assertThat(c.seriousViolations()).as("axe-core on sign-in").isEmpty();
    browser.findElement(By.id("token")).sendKeys("not-a-token");
    browser.findElement(By.cssSelector("form.stack button")).click();
    c.waitFor()
        .until(
            ExpectedConditions.textToBePresentInElementLocated(
                By.cssSelector(".error"), "not valid"));
    browser.get(stack.plannerUrl() + "/console/runs");
    c.waitFor().until(ExpectedConditions.urlContains("/console/sign-in"));
  }

  @Test
  void anAdminForceUnlocksAHeldLockWithAReasonFromTheWorkspacePage() throws Exception {
    String ws = c.workspace(stack.token(), "console-lock-");
    String lockId = "console-lock-" + UUID.randomUUID();
    c.state(
        "POST",
        "/api/v1/workspaces/" + ws + "/lock",
        Map.of("ID", lockId, "Operation", "OperationTypeApply", "Who", "someone@laptop"));
    c.signIn(stack.token());
    browser.get(stack.plannerUrl() + "/console/workspaces/" + ws);
    assertThat(browser.findElement(By.id("lock-holder")).getText()).contains(lockId);
    assertThat(browser.findElement(By.id("lock-state")).getText()).contains("Lease ends");
    browser.findElement(By.id("force-unlock")).click(); // no reason: the browser asks for one
    assertThat(browser.findElements(By.id("notice"))).isEmpty();
    String csrf = browser.findElement(By.name("_csrf")).getAttribute("value");
    Map<?, ?> noReason =
        c.post(
            "/console/workspaces/" + ws + "/force-unlock",
            "_csrf=" + csrf + "&lockId=" + lockId + "&reason=+");
    assertThat(noReason.get("status")).isEqualTo(400L);
    assertThat((String) noReason.get("text")).contains("a reason is required");
    c.shot("workspace-lock");
    browser.findElement(By.id("reason")).sendKeys("the laptop went to sleep holding it");
    browser.findElement(By.id("force-unlock")).click();
    c.waitFor().until(ExpectedConditions.textToBe(By.id("lock-state"), "Not locked."));
    assertThat(browser.findElements(By.id("force-unlock"))).isEmpty();
  }

  @Test
  void theDiffOfTwoStateVersionsShowsTheChangedAttribute() throws Exception {
    String ws = "console-diff-" + UUID.randomUUID().toString().substring(0, 8);
    c.api("POST", "/api/v1/workspaces", stack.token(), Map.of("name", ws, "autoApply", true));
    String first = c.startRun(stack.token(), ws, "revision-one");
    c.awaitStatus(first, "applied");
    String second = c.startRun(stack.token(), ws, "revision-two");
    c.awaitStatus(second, "applied");
    c.signIn(stack.token());
    browser.get(stack.plannerUrl() + "/console/workspaces/" + ws);
    // a run writes a version per action: compare the last version of each run
    new Select(browser.findElement(By.id("from"))).selectByValue(lastVersionOf(first));
    new Select(browser.findElement(By.id("to"))).selectByValue(lastVersionOf(second));
    browser.findElement(By.id("compare")).click();
    c.waitFor().until(ExpectedConditions.visibilityOfElementLocated(By.id("diff")));
    String diff = browser.findElement(By.id("diff")).getText();
    assertThat(diff).contains("stateful_provisioning.a").contains("state_key");
    assertThat(diff).contains("revision-one").contains("revision-two");
    ((JavascriptExecutor) browser)
        .executeScript("document.getElementById('versions-h').scrollIntoView();");
    c.shot("workspace");
    assertThat(c.seriousViolations()).as("axe-core on a workspace").isEmpty();
  }

  @Test
  void aReaderSeesNoSettingsFormNorForceUnlockAndItsForgedPostsAreRefused() throws Exception {
    String ws = c.workspace(stack.token(), "console-wsreader-");
    String lockId = "console-lock-" + UUID.randomUUID();
    c.state("POST", "/api/v1/workspaces/" + ws + "/lock", Map.of("ID", lockId, "Who", "ci"));
    String reader = c.api("POST", "/api/v1/tokens", stack.token(), Map.of("role", "reader"));
    c.signIn(JSON.readTree(reader).get("token").asText());
    browser.get(stack.plannerUrl() + "/console/workspaces/" + ws);
    assertThat(browser.findElement(By.id("settings")).getText()).contains("Parallelism");
    assertThat(browser.findElement(By.id("lock-holder")).getText()).contains(lockId);
    assertThat(browser.findElements(By.id("settings-form"))).isEmpty();
    assertThat(browser.findElements(By.id("force-unlock"))).isEmpty();

    String csrf = browser.findElement(By.name("_csrf")).getAttribute("value");
    Map<?, ?> settings =
        c.post(
            "/console/workspaces/" + ws + "/settings",
            "_csrf=" + csrf + "&autoApply=on&parallelism=3&stepTimeoutSeconds=60");
    assertThat(settings.get("status")).isEqualTo(403L);
    assertThat((String) settings.get("text")).contains("cannot change workspace settings");
    Map<?, ?> unlock =
        c.post(
            "/console/workspaces/" + ws + "/force-unlock",
            "_csrf=" + csrf + "&lockId=" + lockId + "&reason=mine");
    assertThat(unlock.get("status")).isEqualTo(403L);
    JsonNode shown = JSON.readTree(c.api("GET", "/api/v1/workspaces/" + ws, stack.token(), null));
    assertThat(shown.get("autoApply").asBoolean()).as("settings unchanged").isFalse();
    browser.navigate().refresh();
    assertThat(browser.findElement(By.id("lock-holder")).getText())
        .as("still locked")
        .contains(lockId);
    c.state("DELETE", "/api/v1/workspaces/" + ws + "/lock/" + lockId, null);
  }

  @Test
  void anAdminCreatesATokenShownOnceAndRevokesItFromTheTenantPage() throws Exception {
    String description = "console-tenant-" + UUID.randomUUID().toString().substring(0, 8);
    c.signIn(stack.token());
    browser.findElement(By.linkText("Tenant")).click();
    c.waitFor().until(ExpectedConditions.visibilityOfElementLocated(By.id("token-form")));
    new Select(browser.findElement(By.id("role"))).selectByValue("reader");
    browser.findElement(By.id("description")).sendKeys(description);
    browser.findElement(By.id("create-token")).click();
    String token =
        c.waitFor()
            .until(ExpectedConditions.visibilityOfElementLocated(By.id("shown-once")))
            .getText()
            .strip();
    assertThat(c.api("GET", "/api/v1/runs?limit=1", token, null))
        .as("the new token works")
        .isNotNull();
    By row = By.xpath("//table[@id='tokens']//tr[td[text()='" + description + "']]");
    browser.findElement(row).findElement(By.tagName("button")).click();
    c.waitFor().until(ExpectedConditions.invisibilityOfElementLocated(By.id("shown-once")));
    assertThat(browser.findElement(row).findElements(By.tagName("button")))
        .as("a revoked token has no revoke button")
        .isEmpty();
    assertThat(browser.findElement(By.id("webhook-example")).getText())
        .contains(stack.plannerUrl() + "/api/v1/hooks/run-requests");
    c.shot("tenant");
    assertThat(c.seriousViolations()).as("axe-core on the tenant page").isEmpty();
    c.phone(true);
    try {
      browser.navigate().refresh();
      assertThat(c.overflowsSideways()).as("the tenant page on a phone").isFalse();
      WebElement example = browser.findElement(By.id("webhook-example"));
      assertThat(example.getText()).contains("/api/v1/hooks/run-requests");
      assertThat(
              ((JavascriptExecutor) browser)
                  .executeScript(
                      "var e = arguments[0]; return e.scrollWidth <= e.clientWidth;", example))
          .as("the curl example wraps instead of scrolling")
          .isEqualTo(true);
    } finally {
      c.phone(false);
    }
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
}
