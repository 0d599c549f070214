-- The lowest free line, on the stdio bridge: protocol lines on stdin and stdout.
import qualified Data.Set as Set
import Data.List (isPrefixOf, tails)
import System.Environment (lookupEnv)
import System.IO

predrawn :: String -> Set.Set Int
predrawn message = case [rest | rest <- tails message, "\"predrawn\":[" `isPrefixOf` rest] of
  (rest : _) -> Set.fromList (map read (words (map comma (takeWhile (/= ']') (drop 12 rest)))))
  [] -> Set.empty
  where comma c = if c == ',' then ' ' else c

play :: Set.Set Int -> IO ()
play drawn = do
  eof <- isEOF
  if eof then return () else do
    message <- getLine
    case words message of
      ("GAME" : _) -> play (predrawn message)
      ("DRAWN" : _ : line : _) -> play (Set.insert (read line) drawn)
      ("TURN" : request : _) -> do
        putStrLn ("MOVE " ++ request ++ " " ++ show (head (filter (`Set.notMember` drawn) [0 ..])))
        play drawn
      ("BYE" : _) -> return ()
      _ -> play drawn

main :: IO ()
main = do
  hSetBuffering stdout LineBuffering
  token <- lookupEnv "HEXARENA_TOKEN"
  putStrLn ("HELLO v1 " ++ maybe "" id token ++ " runtime-haskell")
  play Set.empty
