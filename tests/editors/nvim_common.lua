-- What the headless Neovim scripts here share: the documented set-up (docs/editors.md) and
-- writing the result for the test to read. Loaded with dofile() by each script.
local M = {}

-- Write `result` as JSON to `out`, then quit Neovim.
function M.finish(out, result)
  local f = assert(io.open(out, "w"))
  f:write(vim.json.encode(result))
  f:close()
  vim.cmd("qa!")
end

-- Attach pallas-lsp the documented way (`extra` adds to the config) and open `file`.
function M.open(server_cmd, file, extra)
  local config = {
    cmd = server_cmd,
    filetypes = { "python" },
    root_markers = { "pyproject.toml", ".git" },
  }
  for k, v in pairs(extra or {}) do
    config[k] = v
  end
  vim.lsp.config("pallas_lsp", config)
  vim.lsp.enable("pallas_lsp")
  vim.cmd.edit(file)
  vim.bo.filetype = "python"
end

return M
