"""tools/deploy_board.py: .mpy by default, from an mpy-cross the board can load."""
import json
import subprocess
import sys

from tests.conftest import ROOT, run_micropython

sys.path.insert(0, str(ROOT / "tools"))
import deploy_board  # noqa: E402


def test_the_bytecode_version_must_match_the_board():
    # sys.implementation._mpy of a v1.2x board: 6 | sub-version 3 << 8 | arch << 10
    assert deploy_board.board_mpy(6 | 3 << 8 | 4 << 10) == (6, 3)
    assert deploy_board.cross_mpy("MicroPython v1.29.0 on 2026; mpy-cross emitting mpy v6.3") == (6, 3)
    assert deploy_board.check_versions((6, 3), (6, 3)) is None
    why = deploy_board.check_versions((6, 1), (6, 3))
    assert "v6.1" in why and "v6.3" in why and "mpy-cross" in why


def test_build_gives_bytecode_the_local_micropython_runs(tmp_path):
    files = deploy_board.build(tmp_path / "b", deploy_board.mpy_cross())
    remote = sorted(r for _, r in files)
    assert ":tableboard/board.mpy" in remote and ":tableboard/boot.mpy" in remote
    assert ":shared_rules/link/sender.mpy" in remote and ":shared_rules/__init__.mpy" in remote
    assert not [r for r in remote if r.endswith(".py")]
    script = tmp_path / "probe.py"
    script.write_text("import tableboard.board, tableboard.boot, shared_rules.link.sender\n"
                      "print(tableboard.board.__file__)\n")
    proc = run_micropython(script, first_path=tmp_path / "b")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().endswith("tableboard/board.mpy")


def test_the_one_command_dry_run_names_the_config(tmp_path):
    out = subprocess.run([sys.executable, str(ROOT / "tools" / "deploy_board.py"), "--port", "/dev/null",
                          "--config", str(ROOT / "firmware" / "boards" / "esp32.json"), "--dry-run"],
                         capture_output=True, text=True, check=True).stdout
    assert "esp32.json :board.json" in out and ":main.py" in out and "reset" in out


def _deploy_dry_run(tmp_path, cfg):
    path = tmp_path / "board.json"
    path.write_text(json.dumps(cfg))
    return subprocess.run([sys.executable, str(ROOT / "tools" / "deploy_board.py"), "--port", "/dev/null",
                           "--config", str(path), "--dry-run"], capture_output=True, text=True)


def esp32():
    return json.loads((ROOT / "firmware" / "boards" / "esp32.json").read_text())


def test_a_configuration_the_board_would_refuse_is_not_copied(tmp_path):
    cfg = esp32()
    del cfg["edges"]                               # ESP32 has no hard GPIO interrupts
    cfg["rails"][0]["adc"]["adc"] = 25             # ADC2
    p = _deploy_dry_run(tmp_path, cfg)
    assert p.returncode != 0
    assert "edges" in p.stderr and "GPIO 25 is on ADC2" in p.stderr and "nothing copied" in p.stderr
    assert " cp " not in p.stdout and "mkdir" not in p.stdout


def test_a_strapping_pin_is_a_warning_and_the_deploy_goes_on(tmp_path):
    cfg = esp32()
    cfg["pockets"][5]["beam"] = 5
    p = _deploy_dry_run(tmp_path, cfg)
    assert p.returncode == 0, p.stderr
    assert "GPIO 5 is a strapping pin" in p.stdout and ":board.json" in p.stdout
    cfg["ignore_strapping"] = [5]                  # the installer checked it: no warning
    assert deploy_board.check_config(cfg, "esp32") == ([], [])


def test_the_board_s_own_platform_names_the_chip_checked():
    assert deploy_board.firmware("chips").of_platform("rp2") == "rp2040"
    assert deploy_board.firmware("chips").of_platform("esp32") == "esp32"
    bad, warn = deploy_board.check_config(esp32(), "rp2040")
    assert "configuration is for esp32, this board is rp2040" in bad
