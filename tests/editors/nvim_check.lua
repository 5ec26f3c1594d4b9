-- Drive real Neovim headless: attach pallas-lsp to a file, then report what Neovim holds.
-- Usage: nvim --headless --clean -n -i NONE -l nvim_check.lua SERVER_JSON FILE OUT_JSON [ENCODING]
local common = dofile(vim.fs.joinpath(vim.fs.dirname(debug.getinfo(1, "S").source:sub(2)), "nvim_common.lua"))
local server_cmd = vim.json.decode(arg[1])
local file, out = arg[2], arg[3]
local encoding = arg[4]
local want_title = arg[5]
local result = { steps = {} }

local function finish()
  common.finish(out, result)
end

local capabilities = vim.lsp.protocol.make_client_capabilities()
if encoding and encoding ~= "" then
  capabilities.general = capabilities.general or {}
  capabilities.general.positionEncodings = { encoding }
end

-- The documented set-up, with debounce off for the test.
common.open(server_cmd, file, { init_options = { debounceMs = 0 }, capabilities = capabilities })

local ok = vim.wait(30000, function()
  return #vim.diagnostic.get(0, { namespace = nil }) > 0
end, 50)
local client = vim.lsp.get_clients({ bufnr = 0, name = "pallas_lsp" })[1]
result.attached = client ~= nil
result.offset_encoding = client and client.offset_encoding or nil
result.diagnostics = {}
for _, d in ipairs(vim.diagnostic.get(0)) do
  table.insert(result.diagnostics, { lnum = d.lnum, col = d.col, end_col = d.end_col, code = d.code,
    source = d.source, message = d.message, severity = d.severity })
end
if not ok or not client then
  return finish()
end

local d = vim.diagnostic.get(0)[1]
vim.api.nvim_win_set_cursor(0, { d.lnum + 1, d.col })
local params = vim.lsp.util.make_position_params(0, client.offset_encoding)
local hover = client:request_sync("textDocument/hover", params, 20000, 0)
result.hover = hover and hover.result and hover.result.contents and hover.result.contents.value or vim.NIL

local lsp_diag = d.user_data and d.user_data.lsp or nil
local ca_params = {
  textDocument = { uri = vim.uri_from_bufnr(0) },
  range = lsp_diag and lsp_diag.range or params.range or { start = params.position, ["end"] = params.position },
  context = { diagnostics = { lsp_diag } },
}
local actions = client:request_sync("textDocument/codeAction", ca_params, 20000, 0)
result.actions = {}
result.had_lsp_diag = lsp_diag ~= nil
local preferred
for _, a in ipairs(actions and actions.result or {}) do
  table.insert(result.actions, a.title)
  if want_title and want_title ~= "" then
    if not preferred and a.title:sub(1, #want_title) == want_title then preferred = a end
  elseif a.isPreferred and not preferred then
    preferred = a
  end
end
if preferred then
  vim.lsp.util.apply_workspace_edit(preferred.edit, client.offset_encoding)
  result.applied = preferred.title
  local cleared = vim.wait(30000, function()
    for _, x in ipairs(vim.diagnostic.get(0)) do
      if x.code == d.code and x.lnum == d.lnum then return false end
    end
    return true
  end, 50)
  result.cleared = cleared
  vim.cmd("silent! write")
  result.after = {}
  for _, x in ipairs(vim.diagnostic.get(0)) do table.insert(result.after, x.code) end
end
finish()
