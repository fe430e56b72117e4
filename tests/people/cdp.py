"""Drive headless Chromium over the DevTools protocol through a pipe.

`--remote-debugging-pipe` makes Chromium read JSON commands from fd 3 and
write replies to fd 4, each message ending in a NUL byte: no websocket
client needed, only the stdlib.
"""

import base64
import json
import os
import queue
import subprocess
import threading
import time

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
         "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
         "--hide-scrollbars", "--mute-audio", "--window-size=1280,720"]


class Browser:
    def __init__(self, user_data_dir, binary=CHROMIUM):
        to_chrome_r, self._w = os.pipe()
        self._r, from_chrome_w = os.pipe()

        def fds():
            # Move both ends out of the way first, in case one already sits at 3 or 4;
            # the copies dup2 makes are inheritable, every other fd is close-on-exec.
            a, b = os.dup(to_chrome_r), os.dup(from_chrome_w)
            os.dup2(a, 3)
            os.dup2(b, 4)

        os.makedirs(user_data_dir, exist_ok=True)
        self.log_path = os.path.join(user_data_dir, "chromium.log")
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(
                [binary] + FLAGS + ["--user-data-dir=%s" % user_data_dir,
                                    "--remote-debugging-pipe", "about:blank"],
                preexec_fn=fds, close_fds=False,
                stdout=subprocess.DEVNULL, stderr=log)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._next = 0
        self._replies = {}
        self._cond = threading.Condition()
        self.events = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.session = None

    def _read(self):
        buf = b""
        while True:
            try:
                chunk = os.read(self._r, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                with self._cond:
                    self._replies[None] = "closed"
                    self._cond.notify_all()
                return
            buf += chunk
            while b"\0" in buf:
                raw, buf = buf.split(b"\0", 1)
                msg = json.loads(raw)
                if "id" in msg:
                    with self._cond:
                        self._replies[msg["id"]] = msg
                        self._cond.notify_all()
                else:
                    self.events.put(msg)

    def send(self, method, params=None, session=True, timeout=15):
        self._next += 1
        msg = {"id": self._next, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self._w, json.dumps(msg).encode() + b"\0")
        deadline = time.time() + timeout
        with self._cond:
            while self._next not in self._replies:
                if None in self._replies:
                    raise RuntimeError("chromium closed the pipe")
                left = deadline - time.time()
                if left <= 0:
                    raise TimeoutError(method)
                self._cond.wait(left)
            reply = self._replies.pop(self._next)
        if "error" in reply:
            raise RuntimeError("%s: %s" % (method, reply["error"]))
        return reply.get("result", {})

    def open(self, url, width=1280, height=720, mobile=False, scale=1):
        """A new tab at `url`; `mobile` emulates a phone: its viewport, scale and a touch screen."""
        target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)
        self.session = self.send("Target.attachToTarget",
                                 {"targetId": target["targetId"], "flatten": True},
                                 session=False)["sessionId"]
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": scale, "mobile": mobile})
        if mobile:
            self.send("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
        self.send("Page.enable")
        self.send("Runtime.enable")
        self.send("Page.navigate", {"url": url})

    def eval(self, expr):
        res = self.send("Runtime.evaluate", {"expression": expr, "returnByValue": True,
                                             "awaitPromise": True})
        if "exceptionDetails" in res:
            raise RuntimeError("JS error: %s" % res["exceptionDetails"])
        return res["result"].get("value")

    def wait_for(self, expr, timeout=10.0):
        """Poll a JS expression until it is truthy; return its value."""
        deadline = time.time() + timeout
        last = None
        while time.time() < deadline:
            try:
                last = self.eval(expr)
            except RuntimeError:
                last = None
            if last:
                return last
            time.sleep(0.05)
        raise TimeoutError("%s stayed %r" % (expr, last))

    def tap(self, selector, timeout=10.0):
        """Touch the middle of the element as a finger would (touchstart/touchend, which the
        browser turns into a click): it must be on screen, have a size and not be covered."""
        where = """(() => {
          const el = document.querySelector(%s);
          if (!el) return null;
          el.scrollIntoView({block: 'center', inline: 'center'});
          const r = el.getBoundingClientRect();
          if (!r.width || !r.height) return null;
          const x = r.left + r.width / 2, y = r.top + r.height / 2;
          const top = document.elementFromPoint(x, y);
          return top && (top === el || el.contains(top)) ? [x, y] : null;
        })()""" % json.dumps(selector)
        x, y = self._steady(where, timeout)
        self.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
        self.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})

    def _steady(self, where, timeout):
        """The point to touch once it has stayed put for 0.1 s: a finger lands where the button
        is, not where it was before the page moved it (Playwright's 'stable' check, which waits
        for two animation frames with the same box, is the model)."""
        deadline = time.time() + timeout
        last = None
        while True:
            now = self.wait_for(where, max(0.1, deadline - time.time()))
            if now == last or time.time() >= deadline:
                return now
            last = now
            time.sleep(0.1)

    def type_into(self, selector, text):
        """Replace an input's text by typing, as a keyboard would."""
        self.tap(selector)
        self.eval("document.querySelector(%s).select()" % json.dumps(selector))
        self.send("Input.insertText", {"text": text})

    def screenshot(self, path):
        data = self.send("Page.captureScreenshot", {"format": "png"})["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def close(self):
        try:
            self.send("Browser.close", session=False, timeout=5)
        except (RuntimeError, TimeoutError, OSError):
            pass
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
        for fd in (self._w, self._r):
            try:
                os.close(fd)
            except OSError:
                pass
