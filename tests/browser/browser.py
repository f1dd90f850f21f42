"""What the browser tests share (test_view.py, test_report.py): Debian's headless Chromium through
chromium-driver and selenium, with the network cut off, and the check that a page asked for nothing.

Importing it exits 77 (meson: skipped) with a message when chromium, chromedriver or selenium is
not installed.
"""
import json
import os
import shutil
import sys

SKIP = 77


def skip(msg):
    print('SKIP: ' + msg + ' (tools/dev.sh installs chromium, chromium-driver and python3-selenium)')
    sys.exit(SKIP)


CHROMIUM = shutil.which('chromium') or '/usr/bin/chromium'
DRIVER = shutil.which('chromedriver') or '/usr/bin/chromedriver'
if not os.access(CHROMIUM, os.X_OK):
    skip('no chromium')
if not os.access(DRIVER, os.X_OK):
    skip('no chromedriver')
try:
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By  # noqa: F401 (for the tests)
    from selenium.webdriver.common.keys import Keys  # noqa: F401 (for the tests)
except ImportError:
    skip('no selenium for ' + sys.executable)

FAILURES = []


def check(cond, what):
    if not cond:
        FAILURES.append(what)
        print('FAIL: ' + what)
    return cond


def offline_driver(*extra):
    """A headless Chromium, 1280 by 900, that can reach no network; its console and requests logged."""
    o = Options()
    o.binary_location = CHROMIUM
    for a in ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--window-size=1280,900',
              '--no-first-run', '--disable-extensions', '--disable-background-networking',
              '--disable-component-update', '--disable-sync', '--host-resolver-rules=MAP * ~NOTFOUND',
              '--proxy-server=127.0.0.1:9'] + list(extra):
        o.add_argument(a)
    o.set_capability('goog:loggingPrefs', {'browser': 'ALL', 'performance': 'ALL'})
    d = webdriver.Chrome(service=Service(DRIVER), options=o)
    d.execute_cdp_cmd('Network.enable', {})
    d.execute_cdp_cmd('Network.emulateNetworkConditions',
                      {'offline': True, 'latency': 0, 'downloadThroughput': 0, 'uploadThroughput': 0})
    return d


def check_quiet(d, path, data_urls=False):
    """No console error since the last call, and no request but for files (and data: URLs when allowed)."""
    for e in d.get_log('browser'):
        check(e['level'] not in ('SEVERE', 'ERROR'), '%s: console: %s' % (path, e['message']))
    for e in d.get_log('performance'):
        m = json.loads(e['message'])['message']
        if m.get('method') == 'Network.requestWillBeSent':
            url = m['params']['request']['url']
            check(url.startswith('file://') or (data_urls and url.startswith('data:')) or url == 'about:blank',
                  '%s: the page asked the network for %s' % (path, url))
