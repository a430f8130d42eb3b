"""A minimal Chrome DevTools Protocol client over --remote-debugging-pipe.

Headless Chromium (Debian `chromium`) reads protocol commands from fd 3 and
writes responses and events to fd 4, each message JSON terminated by a NUL
byte: the transport Puppeteer's `pipe: true` and Playwright use. No
WebSocket, no port, no third-party package: nothing to install but the
browser.

    with Browser() as b:
        page = b.new_page()
        page.navigate("file:///.../report.html")
        page.evaluate("document.title")
"""
import json
import os
import shutil
import subprocess
import tempfile
import time


def find_chromium():
    for name in (os.environ.get("CDCH_CHROMIUM"), "chromium", "chromium-browser", "google-chrome", "chrome"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


class CDPError(Exception):
    pass


class Browser:
    def __init__(self, binary=None, timeout=30.0):
        self.binary = binary or find_chromium()
        if not self.binary:
            raise CDPError("no chromium found (Debian package `chromium`; scripts/setup.sh installs it)")
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="cdch-chromium-")
        cmd_r, cmd_w = os.pipe()   # we write commands, chromium reads fd 3
        ev_r, ev_w = os.pipe()     # chromium writes fd 4, we read

        def child_fds():
            # move both ends above 4 first so the dup2s cannot clobber each other
            a, b = os.dup(cmd_r), os.dup(ev_w)
            os.dup2(a, 3)
            os.dup2(b, 4)

        args = [self.binary, "--headless=new", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
                "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--disable-sync",
                "--disable-background-networking", "--disable-component-update", "--disable-dev-shm-usage",
                "--mute-audio", "--hide-scrollbars", "--user-data-dir=" + self.profile, "about:blank"]
        # the log goes to a file: a pipe nobody reads could fill and stall the browser
        self.log = open(os.path.join(self.profile, "chromium.log"), "w+b")
        # close_fds=False: fds 3 and 4 made by dup2 in child_fds are inheritable and survive the exec; every
        # other descriptor of ours is close-on-exec (Python's default)
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=self.log, preexec_fn=child_fds, close_fds=False)
        os.close(cmd_r)
        os.close(ev_w)
        self.w = cmd_w
        self.r = ev_r
        self.buf = b""
        self.next_id = 0
        self.events = []

    # -- transport --
    def _send(self, method, params=None, session=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        data = json.dumps(msg).encode() + b"\0"
        while data:
            n = os.write(self.w, data)
            data = data[n:]
        return self.next_id

    def _read_one(self, deadline):
        import select
        while b"\0" not in self.buf:
            left = deadline - time.time()
            if left <= 0:
                raise CDPError("timed out waiting for chromium")
            ready, _, _ = select.select([self.r], [], [], left)
            if not ready:
                continue
            chunk = os.read(self.r, 1 << 20)
            if not chunk:
                self.log.seek(0)
                err = self.log.read().decode(errors="replace")
                raise CDPError("chromium closed the pipe" + (": " + err[-2000:] if err else ""))
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=None, timeout=None):
        mid = self._send(method, params, session)
        deadline = time.time() + (timeout or self.timeout)
        while True:
            msg = self._read_one(deadline)
            if msg.get("id") == mid:
                if "error" in msg:
                    raise CDPError("%s: %s" % (method, msg["error"]))
                return msg.get("result", {})
            self.events.append(msg)

    def wait_event(self, method, session=None, timeout=None, pred=None):
        deadline = time.time() + (timeout or self.timeout)
        for i, e in enumerate(self.events):
            if e.get("method") == method and (session is None or e.get("sessionId") == session) and (not pred or pred(e)):
                return self.events.pop(i)
        while True:
            msg = self._read_one(deadline)
            if msg.get("method") == method and (session is None or msg.get("sessionId") == session) and \
                    (not pred or pred(msg)):
                return msg
            self.events.append(msg)

    def pump(self, seconds):
        """Collect events for a while."""
        deadline = time.time() + seconds
        try:
            while True:
                self.events.append(self._read_one(deadline))
        except CDPError as e:
            if "timed out" not in str(e):
                raise

    def new_page(self, width=1400, height=1000):
        t = self.call("Target.createTarget", {"url": "about:blank"})
        s = self.call("Target.attachToTarget", {"targetId": t["targetId"], "flatten": True})["sessionId"]
        page = Page(self, s)
        for m in ("Page.enable", "Runtime.enable", "Log.enable", "Network.enable"):
            page.call(m)
        page.call("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1,
                                                          "mobile": False})
        return page

    def close(self):
        try:
            self.call("Browser.close", timeout=5)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self.w, self.r):
            try:
                os.close(fd)
            except OSError:
                pass
        self.log.close()
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.close()


class Page:
    def __init__(self, browser, session):
        self.b = browser
        self.s = session

    def call(self, method, params=None, timeout=None):
        return self.b.call(method, params, self.s, timeout)

    def navigate(self, url, timeout=30):
        self.call("Page.navigate", {"url": url})
        self.b.wait_event("Page.loadEventFired", self.s, timeout)

    def evaluate(self, expr):
        r = self.call("Runtime.evaluate", {"expression": expr, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in r:
            d = r["exceptionDetails"]
            raise CDPError("evaluate %r: %s" % (expr[:80], d.get("exception", {}).get("description") or d.get("text")))
        return r["result"].get("value")

    def click(self, selector):
        """A real mouse click in the middle of the element (scrolled into view)."""
        box = self.evaluate(
            "(function(){var e=document.querySelector(%s); if(!e) return null; e.scrollIntoView({block:'center',"
            "inline:'center'}); var r=e.getBoundingClientRect(); return [r.left+r.width/2, r.top+r.height/2];})()"
            % json.dumps(selector))
        if not box:
            raise CDPError("no element %s to click" % selector)
        for t in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", {"type": t, "x": box[0], "y": box[1], "button": "left",
                                                   "clickCount": 1 if t != "mouseMoved" else 0})

    def screenshot(self, path, full=False):
        params = {"format": "png"}
        if full:
            params["captureBeyondViewport"] = True
            m = self.call("Page.getLayoutMetrics")
            cs = m.get("cssContentSize") or m["contentSize"]
            params["clip"] = {"x": 0, "y": 0, "width": cs["width"], "height": cs["height"], "scale": 1}
        import base64
        data = self.call("Page.captureScreenshot", params)["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def events(self, *methods):
        return [e for e in self.b.events if e.get("sessionId") == self.s and e.get("method") in methods]
