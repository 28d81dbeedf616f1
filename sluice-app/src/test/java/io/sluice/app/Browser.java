package io.sluice.app;

import io.sluice.kafka.testing.RequiredTool;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * A real headless browser for the console's tests: Debian's {@code chromium} driven through its
 * {@code chromium-driver} by Selenium, nothing downloaded at run time. Where they are not installed the test is
 * skipped, saying so; under {@code CI} (where {@code .ci/run} installs them) it fails instead ({@link RequiredTool}).
 */
final class Browser implements AutoCloseable {
  static final Path SCREENSHOTS = Path.of("target", "screenshots");

  final ChromeDriver driver;

  private Browser(ChromeDriver driver) {
    this.driver = driver;
  }

  static Browser open() throws Exception {
    Path chromium = RequiredTool.require("chromium", "Debian package chromium");
    Path chromedriver = RequiredTool.require("chromedriver", "Debian package chromium-driver");
    ChromeOptions options = new ChromeOptions();
    options.setBinary(chromium.toFile());
    options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1800",
        "--disable-gpu");
    ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(chromedriver.toFile())
        .usingAnyFreePort().build();
    ChromeDriver driver = new ChromeDriver(service, options);
    driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(60));
    return new Browser(driver);
  }

  /** A PNG of the page as it is now, under {@code target/screenshots/}. */
  Path screenshot(String name) throws Exception {
    Files.createDirectories(SCREENSHOTS);
    File shot = driver.getScreenshotAs(OutputType.FILE);
    Path to = SCREENSHOTS.resolve(name + ".png");
    Files.copy(shot.toPath(), to, StandardCopyOption.REPLACE_EXISTING);
    return to;
  }

  @Override
  public void close() {
    driver.quit();
  }
}
