-- Drive real Neovim headless: click pallas-lsp's code lens (vim.lsp.codelens.run) on a launch
-- and report where the cursor went. Neovim has no client code for the command: it asks the
-- server (workspace/executeCommand), which moves the editor with window/showDocument.
-- Usage: nvim --headless --clean -n -i NONE -l nvim_lens.lua SERVER_JSON FILE OUT_JSON LENS_LINE
local common = dofile(vim.fs.joinpath(vim.fs.dirname(debug.getinfo(1, "S").source:sub(2)), "nvim_common.lua"))
local server_cmd = vim.json.decode(arg[1])
local file, out = arg[2], arg[3]
local lens_line = tonumber(arg[4]) -- 1-based line of the launch
local result = {}

local function finish()
  common.finish(out, result)
end

common.open(server_cmd, file)

local attached = vim.wait(30000, function()
  return vim.lsp.get_clients({ bufnr = 0, name = "pallas_lsp" })[1] ~= nil
    and #vim.diagnostic.get(0) > 0
end, 50)
result.attached = attached
if not attached then
  return finish()
end
local buf = vim.api.nvim_get_current_buf()
vim.lsp.codelens.refresh({ bufnr = buf })
result.lenses = vim.wait(30000, function()
  return #vim.lsp.codelens.get(buf) > 0
end, 50)
result.titles = {}
for _, l in ipairs(vim.lsp.codelens.get(buf)) do
  table.insert(result.titles, { line = l.range.start.line, title = l.command and l.command.title or vim.NIL })
end
if not result.lenses then
  return finish()
end
vim.api.nvim_win_set_cursor(0, { lens_line, 0 })
result.before = vim.api.nvim_win_get_cursor(0)
vim.lsp.codelens.run()
result.moved = vim.wait(20000, function()
  return vim.api.nvim_win_get_cursor(0)[1] ~= lens_line
end, 50)
result.after = vim.api.nvim_win_get_cursor(0)
result.line_text = vim.api.nvim_get_current_line()
result.file = vim.api.nvim_buf_get_name(0)
finish()
