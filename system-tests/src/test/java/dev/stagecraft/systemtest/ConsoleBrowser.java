package dev.stagecraft.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The browser the console's browser tests drive (Debian's headless Chromium through its
 * chromedriver; nothing is downloaded) against the shared stack, and what those tests do with it:
 * sign in, same-origin form posts and fetches from the page, axe-core, screenshots (into {@code
 * target/console-screenshots}), and the API and state service calls that set up what a page shows.
 * One per test class; not thread-safe (a test class drives it from one thread).
 */
final class ConsoleBrowser implements AutoCloseable {
  static final ObjectMapper JSON = new ObjectMapper();
  static final Duration WAIT = Duration.ofSeconds(90);
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  final SharedStack stack;
  final WebDriver browser;
  private final Path screenshots;

  ConsoleBrowser() throws Exception {
    stack = SharedStack.get();
    ChromeDriverService service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(new File("/usr/bin/chromedriver"))
            .usingAnyFreePort()
            .build();
    ChromeOptions options = new ChromeOptions();
    options.setBinary("/usr/bin/chromium");
    options.addArguments(
        "--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1100,900");
    browser = new ChromeDriver(service, options);
    screenshots = Path.of("target", "console-screenshots");
    Files.createDirectories(screenshots);
  }

  @Override
  public void close() {
    browser.quit();
  }

  /**
   * Whether the page is shown as on a phone (390 CSS pixels wide, Chromium's device emulation) or
   * in the desktop window again.
   */
  void phone(boolean on) {
    ChromeDriver chrome = (ChromeDriver) browser;
    if (on) {
      chrome.executeCdpCommand(
          "Emulation.setDeviceMetricsOverride",
          Map.of("width", 390, "height", 844, "deviceScaleFactor", 2, "mobile", true));
    } else {
      chrome.executeCdpCommand("Emulation.clearDeviceMetricsOverride", Map.of());
    }
  }

  /** Cuts the browser off the network (Chromium's network emulation), or connects it again. */
  void offline(boolean on) {
    ChromeDriver chrome = (ChromeDriver) browser;
    chrome.executeCdpCommand("Network.enable", Map.of());
    chrome.executeCdpCommand(
        "Network.emulateNetworkConditions",
        Map.of("offline", on, "latency", 0, "downloadThroughput", -1, "uploadThroughput", -1));
  }

  /** Whether the page is wider than its viewport (a phone would scroll it sideways). */
  boolean overflowsSideways() {
    return (Boolean)
        ((JavascriptExecutor) browser)
            .executeScript(
                "return document.documentElement.scrollWidth"
                    + " > document.documentElement.clientWidth;");
  }

  /** Signed out: the sign-in page with no cookies. */
  void signOut() {
    browser.get(stack.plannerUrl() + "/console/sign-in");
    browser.manage().deleteAllCookies();
  }

  void signIn(String token) {
    browser.get(stack.plannerUrl() + "/console/sign-in");
    browser.findElement(By.id("token")).sendKeys(token);
    browser.findElement(By.cssSelector("form.stack button")).click();
    waitFor().until(ExpectedConditions.urlContains("/console/runs"));
  }

  /** A same-origin form POST from the page (the session cookie goes along): status and text. */
  Map<?, ?> post(String path, String form) {
    Object result =
        ((JavascriptExecutor) browser)
            .executeAsyncScript(
                "var done = arguments[arguments.length - 1];"
                    + "fetch(arguments[0], {method: 'POST', credentials: 'same-origin',"
                    + " headers: {'Content-Type': 'application/x-www-form-urlencoded'},"
                    + " body: arguments[1]})"
                    + ".then(function (r) { return r.text().then(function (t) {"
                    + " done({status: r.status, text: t}); }); })"
                    + ".catch(function (e) { done({status: -1, text: String(e)}); });",
                path,
                form);
    return (Map<?, ?>) result;
  }

  /** A same-origin GET from the page: status and text. */
  Map<?, ?> fetch(String path) {
    return fetch(path, Map.of());
  }

  /** A same-origin GET from the page with {@code headers}: status and text. */
  Map<?, ?> fetch(String path, Map<String, String> headers) {
    Object result =
        ((JavascriptExecutor) browser)
            .executeAsyncScript(
                "var done = arguments[arguments.length - 1];"
                    + "fetch(arguments[0], {credentials: 'same-origin', headers: arguments[1]})"
                    + ".then(function (r) { return r.text().then(function (t) {"
                    + " done({status: r.status, text: t}); }); })"
                    + ".catch(function (e) { done({status: -1, text: String(e)}); });",
                path,
                headers);
    return (Map<?, ?>) result;
  }

  WebDriverWait waitFor() {
    return new WebDriverWait(browser, WAIT);
  }

  /**
   * Runs axe-core (dev/axe, npm) in the page: the serious and critical violations, as "rule: what
   * (where)" lines; empty when there are none.
   */
  List<String> seriousViolations() throws Exception {
    String axe =
        Files.readString(
            SharedStack.repoRoot().resolve("dev/axe/node_modules/axe-core/axe.min.js"));
    JavascriptExecutor js = (JavascriptExecutor) browser;
    js.executeScript(axe);
    Object found =
        js.executeAsyncScript(
            "var done = arguments[arguments.length - 1];"
                + "axe.run(document, {resultTypes: ['violations']}).then(function (r) {"
                + " done(r.violations.filter(function (v) {"
                + "  return v.impact === 'serious' || v.impact === 'critical'; })"
                + " .map(function (v) { return v.id + ': ' + v.help + ' ('"
                + "  + v.nodes.map(function (n) { return n.target.join(' '); }).join(', ') + ')'; }));"
                + "}).catch(function (e) { done(['axe failed: ' + e]); });");
    return ((List<?>) found).stream().map(String::valueOf).toList();
  }

  void shot(String name) throws Exception {
    File png = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE);
    Files.copy(
        png.toPath(), screenshots.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
  }

  String workspace(String token, String prefix) throws Exception {
    String ws = prefix + UUID.randomUUID().toString().substring(0, 8);
    api("POST", "/api/v1/workspaces", token, Map.of("name", ws, "autoApply", false));
    return ws;
  }

  String startRun(String token, String ws) throws Exception {
    return startRun(token, ws, "a");
  }

  String startRun(String token, String ws, String stateKey) throws Exception {
    return startRunOf(
        token,
        ws,
        """
        resource "stateful_provisioning" "a" {
          state_key = "%s"
          provisioner "local-exec" {
            command = "echo console-line-a"
          }
        }
        resource "stateful_provisioning" "b" {
          state_key = "b"
          provisioner "local-exec" {
            command = "echo console-line-b"
          }
        }
        """
            .formatted(stateKey));
  }

  /** Starts a run of {@code mainTf} in {@code ws}; its id. */
  String startRunOf(String token, String ws, String mainTf) throws Exception {
    String body =
        api(
            "POST",
            "/api/v1/runs",
            token,
            Map.of("workspace", ws, "files", Map.of("main.tf", mainTf)));
    return JSON.readTree(body).get("id").asText();
  }

  void awaitStatus(String run, String status) {
    await()
        .atMost(WAIT)
        .until(
            () ->
                JSON.readTree(api("GET", "/api/v1/runs/" + run, stack.token(), null))
                    .get("status")
                    .asText(),
            status::equals);
  }

  /** A call of the state service's public API that must succeed (2xx); its body. */
  String state(String method, String path, Object body) throws Exception {
    return call(stack.stack().info().state(), method, path, stack.token(), body);
  }

  /** An API call that must succeed (2xx); its body. */
  String api(String method, String path, String token, Object body) throws Exception {
    return call(stack.plannerUrl(), method, path, token, body);
  }

  String call(String base, String method, String path, String token, Object body) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(base + path))
            .timeout(Duration.ofSeconds(30))
            .header("Authorization", "Bearer " + token)
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)));
    if (body != null) {
      b.header("Content-Type", "application/json");
    }
    HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(method + " " + path + ": " + r.body()).isBetween(200, 299);
    return r.body();
  }
}
