"""Issue 16: the service unit bounds what the daemon may spend and touch.

`systemd-analyze security` rated the unit 6.1 (MEDIUM) with no MemoryMax or TasksMax; it must be
3.0 or below while `systemd-analyze verify` still passes (tests/deploy/test_service_files.py).
The rating is read offline from a copy whose ExecStart points at this venv's `billiards`."""
import re
import shutil
import subprocess

import pytest

from tests.deploy.test_service_files import BILLIARDS, UNIT, unit_settings

def _offline_review():
    """True if this systemd-analyze reviews unit files offline (systemd 250 and later)."""
    exe = shutil.which("systemd-analyze")
    return bool(exe) and "--offline" in subprocess.run([exe, "--help"], capture_output=True, text=True).stdout


HAS_OFFLINE = _offline_review()


def test_the_unit_bounds_memory_tasks_and_file_modes():
    s = unit_settings()
    assert s["MemoryMax"] == ["256M"] and s["TasksMax"] == ["256"]
    assert s["UMask"] == ["0077"] and s["StateDirectoryMode"] == ["0700"]
    assert s["CapabilityBoundingSet"] == [""] and s["NoNewPrivileges"] == ["yes"]


@pytest.mark.skipif(not HAS_OFFLINE, reason="systemd-analyze with --offline (systemd 250+) is needed")
def test_systemd_analyze_security_rates_the_unit_3_or_below(tmp_path):
    (tmp_path / "billiards@.service").write_text(
        UNIT.read_text().replace("/opt/billiards/venv/bin/billiards", str(BILLIARDS)))
    (tmp_path / "billiards@t1.service").symlink_to("billiards@.service")
    p = subprocess.run(["systemd-analyze", "security", "--offline=true", "--no-pager",
                        str(tmp_path / "billiards@t1.service")], capture_output=True, text=True, timeout=60)
    m = re.search(r"Overall exposure level for billiards@t1\.service: ([0-9.]+)", p.stdout + p.stderr)
    assert m, p.stdout + p.stderr
    assert float(m.group(1)) <= 3.0, p.stdout
