package io.sluice.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The reconcile section of a pipeline's console page, as a test drives it in the browser: start a run, watch its
 * percentage, read the report's rows; and the console API behind it with a session's cookie, as the page calls it.
 */
final class ReconcilePage {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private final WebDriver d;
  private final String ui;

  ReconcilePage(WebDriver d, String ui) {
    this.d = d;
    this.ui = ui;
  }

  /** Opens the pipeline's page and waits for its reconcile section. */
  ReconcilePage open(String pipeline) {
    d.get(ui + "/pipeline?name=" + pipeline);
    new WebDriverWait(d, Duration.ofSeconds(60)).until(ExpectedConditions.visibilityOfElementLocated(
        By.id("reconcile")));
    return this;
  }

  boolean hasButton() {
    return !d.findElements(By.id("act-reconcile")).isEmpty()
        && d.findElement(By.id("act-reconcile")).isDisplayed();
  }

  /**
   * Clicks the button and waits for the run's report; returns the percentages the page showed while it ran (none when
   * the run ended before the page's first look).
   */
  List<String> run(Duration timeout) {
    String before = d.findElements(By.id("reconcile-status")).isEmpty() ? ""
        : d.findElement(By.id("reconcile-report")).getText();
    new WebDriverWait(d, Duration.ofSeconds(30)).until(ExpectedConditions.elementToBeClickable(
        By.id("act-reconcile"))).click();
    List<String> seen = new ArrayList<>();
    new WebDriverWait(d, timeout).pollingEvery(Duration.ofMillis(100))
        .ignoring(org.openqa.selenium.StaleElementReferenceException.class).until(x -> {
          WebElement progress = x.findElement(By.id("reconcile-progress"));
          if (progress.isDisplayed()) {
            seen.add(progress.getText());
          }
          return !progress.isDisplayed() && !x.findElements(By.id("reconcile-status")).isEmpty()
              && !x.findElement(By.id("reconcile-report")).getText().equals(before);
        });
    return seen;
  }

  String status() {
    return d.findElement(By.id("reconcile-status")).getText();
  }

  /** The report's row of a source table: column header → cell text. */
  Map<String, String> row(String sourceTable) {
    List<WebElement> heads = d.findElements(By.cssSelector("#reconcile-report th"));
    List<WebElement> cells = d.findElements(By.cssSelector("#reconcile-report tr[data-table='" + sourceTable
        + "'] td"));
    Map<String, String> out = new java.util.LinkedHashMap<>();
    for (int i = 0; i < cells.size() && i < heads.size(); i++) {
      out.put(heads.get(i).getText(), cells.get(i).getText());
    }
    return out;
  }

  String cookie() {
    return "sluice_session=" + d.manage().getCookieNamed("sluice_session").getValue();
  }

  String csrf() {
    return d.findElement(By.cssSelector("meta[name='csrf']")).getAttribute("content");
  }

  /** {@code POST /api/reconcile/run} as the page posts it, with this session's cookie and CSRF token. */
  HttpResponse<String> post(String pipeline) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create(ui + "/api/reconcile/run")).header("Cookie", cookie())
        .header("X-CSRF-Token", csrf()).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(Map.of("name", pipeline)))).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** {@code GET /api/reconcile?name=}: the run going on and the last report. */
  JsonNode state(String pipeline) throws Exception {
    return JSON.readTree(HTTP.send(HttpRequest.newBuilder(URI.create(ui + "/api/reconcile?name=" + pipeline))
        .header("Cookie", cookie()).build(), HttpResponse.BodyHandlers.ofString()).body());
  }
}
