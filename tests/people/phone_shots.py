"""Phone-sized screenshots for the docs (BILLIARDS_PHONE_SCREENSHOTS=DIR keeps them, else a
temporary folder), shared by the phone page's browser tests."""
import json
import os


class Shots:
    def __init__(self, browser, tmp_path):
        self.browser = browser
        self.dir = os.environ.get("BILLIARDS_PHONE_SCREENSHOTS") or str(tmp_path / "shots")
        os.makedirs(self.dir, exist_ok=True)

    def __call__(self, name, top=None, answer=False):
        """A screenshot; `top` scrolls that element to the top first, just below the page's
        sticky header if it has one; the answer to the last tap is left showing only with
        `answer` (pages without one, like /venue, have nothing to hide)."""
        if not answer:
            self.browser.eval("(document.getElementById('result') || {}).hidden = true")
        if top:
            self.browser.eval("document.querySelector(%s).scrollIntoView({block: 'start'})" % json.dumps(top))
            self.browser.eval("window.scrollBy(0, -((document.querySelector('header') || {offsetHeight: 0})"
                              ".offsetHeight + 8))")
        else:
            self.browser.eval("window.scrollTo(0, 0)")
        path = os.path.join(self.dir, name + ".png")
        self.browser.screenshot(path)
        assert os.path.getsize(path) > 10000
        return path
