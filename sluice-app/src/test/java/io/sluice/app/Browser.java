package io.sluice.app;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

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
 * A real headless browser for the dashboard's tests: Debian's {@code chromium} driven through its
 * {@code chromium-driver} by Selenium, nothing downloaded at run time. Where they are not installed the test is
 * skipped, saying so; under {@code CI} (where {@code .ci/run} installs them) it fails instead.
 */
final class Browser implements AutoCloseable {
  static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  static final Path DRIVER = Path.of("/usr/bin/chromedriver");
  static final Path SCREENSHOTS = Path.of("target", "screenshots");

  final ChromeDriver driver;

  private Browser(ChromeDriver driver) {
    this.driver = driver;
  }

  static Browser open() throws Exception {
    boolean present = Files.isExecutable(CHROMIUM) && Files.isExecutable(DRIVER);
    if (!present && System.getenv("CI") != null) {
      throw new AssertionError("chromium and chromium-driver are missing: .ci/run installs them");
    }
    assumeTrue(present, "skipped: Debian's chromium and chromium-driver are not installed "
        + "(apt-get install chromium chromium-driver)");
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1800",
        "--disable-gpu");
    ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(DRIVER.toFile())
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
