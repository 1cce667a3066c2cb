// The hooks.json files of the service's documentation (/work/shared/seed/agent-hooks.md), verbatim:
// the security gate, the schema section's example (security gate and auto-format), the privacy gate
// and the audit logging example, each as the documentation writes the file (its JSON or its REST
// form's content string), and the security gate's script.

export const SEED_HOOKS_FILES: Readonly<Record<string, string>> = {
  "security-gate":
    '{"security-gate": {"pre_tool_execution": [{"matcher": "code_execution", "hooks": [{"type": "command", "command": "python3 /.agents/hooks-scripts/gate.py", "timeout": 10}]}]}}',
  "schema-section": `{
  "security-gate": {
    "enabled": true,
    "pre_tool_execution": [
      {
        "matcher": "code_execution",
        "hooks": [
          {
            "type": "command",
            "command": "python3 /.agents/hooks-scripts/gate.py",
            "timeout": 10
          }
        ]
      }
    ]
  },
  "auto-format": {
    "post_tool_execution": [
      {
        "matcher": "*",
        "hooks": [
          {
            "type": "command",
            "command": "python3 /.agents/hooks-scripts/auto_lint.py",
            "timeout": 15
          }
        ]
      }
    ]
  }
}
`,
  "privacy-gate":
    '{"privacy-gate": {"pre_tool_execution": [{"matcher": "read_file", "hooks": [{"type": "command", "command": "python3 /.agents/hooks-scripts/check_privacy.py", "timeout": 5}]}]}}',
  "audit-logging":
    '{"audit-logging": {"post_tool_execution": [{"matcher": "read_file|write_file", "hooks": [{"type": "http", "url": "https://telemetry.example.com/api/v1/agent-events", "timeout": 10}]}]}}',
};

export const SEED_GATE_SCRIPT = `#!/usr/bin/env python3
import sys, json
data = json.load(sys.stdin)
cmd = str(data.get("tool_call", {}).get("args", {}))
if "rm -rf" in cmd:
    print(json.dumps({"decision": "deny", "reason": "Destructive command blocked by security gate."}))
else:
    print(json.dumps({"decision": "allow"}))
`;
